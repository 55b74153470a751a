package transport

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"strings"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/scache/internal/option"
	"github.com/jdwpscache/scache/scache/internal/tunnel"
)

// A TunnelKey is the secret the two halves of a split proxy share: a key
// pair and its self-signed certificate, in one file. With it the tunnel is
// TLS 1.3, and each half proves it holds the key before anything else
// crosses: the near half dials the VM only for a far half with the same
// key, and a far half talks only to a near half with it. The certificate is
// pinned by its SHA-256 fingerprint; no certificate authority is involved.
type TunnelKey struct {
	cert        tls.Certificate
	fingerprint [sha256.Size]byte
}

// GenerateTunnelKey makes a new key and writes it to path (created with
// mode 0600; an existing file is not overwritten). Copy the file to the
// other half's machine: both halves run with -key FILE.
func GenerateTunnelKey(path string) (*TunnelKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "scache split tunnel"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().AddDate(100, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, priv)
	if err != nil {
		return nil, err
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	data := append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})...)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("scache: writing the tunnel key: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, fmt.Errorf("scache: writing the tunnel key: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("scache: writing the tunnel key: %w", err)
	}
	return parseTunnelKey(data)
}

// LoadTunnelKey reads a key written by GenerateTunnelKey.
func LoadTunnelKey(path string) (*TunnelKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scache: reading the tunnel key: %w", err)
	}
	k, err := parseTunnelKey(data)
	if err != nil {
		return nil, fmt.Errorf("scache: the tunnel key %s: %w", path, err)
	}
	return k, nil
}

func parseTunnelKey(data []byte) (*TunnelKey, error) {
	cert, err := tls.X509KeyPair(data, data)
	if err != nil {
		return nil, fmt.Errorf("not a tunnel key (make one with scache keygen FILE): %w", err)
	}
	return &TunnelKey{cert: cert, fingerprint: sha256.Sum256(cert.Certificate[0])}, nil
}

// Fingerprint names the key without revealing it: "SHA256:" and the
// base64 of its certificate's SHA-256, as both halves log it.
func (k *TunnelKey) Fingerprint() string { return fingerprintOf(k.fingerprint) }

// ErrWrongTunnelKey: the other half does not hold the same tunnel key (or
// none).
var ErrWrongTunnelKey = errors.New("scache: the other half of the split proxy does not hold this tunnel key")

// config is the TLS 1.3 configuration of either half: its own certificate,
// and the other's required and pinned to the same one.
func (k *TunnelKey) config() *tls.Config {
	return &tls.Config{
		MinVersion:         tls.VersionTLS13,
		Certificates:       []tls.Certificate{k.cert},
		ClientAuth:         tls.RequireAnyClientCert,
		InsecureSkipVerify: true, // no authority: the peer's certificate is pinned below
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 {
				return fmt.Errorf("%w: the peer showed no certificate", ErrWrongTunnelKey)
			}
			sum := sha256.Sum256(raw[0])
			if subtle.ConstantTimeCompare(sum[:], k.fingerprint[:]) != 1 {
				return &foreignCertificate{got: sum, pinned: k.fingerprint}
			}
			return nil
		},
	}
}

// A foreignCertificate is a peer's certificate that is not the one the
// tunnel key pins: another key's, or a man in the middle's.
type foreignCertificate struct{ got, pinned [sha256.Size]byte }

func (e *foreignCertificate) Error() string {
	return fmt.Sprintf("scache: the peer's certificate (%s) is not the one this tunnel key pins (%s): another key, or a man in the middle",
		fingerprintOf(e.got), fingerprintOf(e.pinned))
}

func (e *foreignCertificate) Unwrap() error { return ErrWrongTunnelKey }

// fingerprintOf names a certificate by its SHA-256, as Fingerprint does.
func fingerprintOf(sum [sha256.Size]byte) string {
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])
}

// Server returns c as the near half's end of a keyed tunnel; its handshake
// runs at the first read or write, or with HandshakeContext.
func (k *TunnelKey) Server(c net.Conn) *tls.Conn { return tls.Server(c, k.config()) }

// Client returns c as the far half's end of a keyed tunnel.
func (k *TunnelKey) Client(c net.Conn) *tls.Conn { return tls.Client(c, k.config()) }

// WithTunnelKey makes a Proxy that is a half of a split proxy (WithSplit)
// speak the tunnel over TLS 1.3 with key: a near half accepts only a far
// half that holds the same key, before it reads the hello or dials the VM;
// a far half talks only to a near half that holds it.
func WithTunnelKey(k *TunnelKey) scache.Option {
	return option.New("WithTunnelKey", option.Proxy, func(st *option.Settings) error {
		if k == nil {
			return errors.New("no key")
		}
		st.TunnelKey = k
		return nil
	})
}

// tunnelKey returns the key given with WithTunnelKey, or nil.
func (st *settings) tunnelKey() *TunnelKey {
	k, _ := st.TunnelKey.(*TunnelKey)
	return k
}

// keyedFar makes vm, the far half's connection to the near half, its end of
// a keyed tunnel, and names what went wrong: a near half with another key,
// or one without any.
func keyedFar(ctx context.Context, c net.Conn, key *TunnelKey, timeout time.Duration) (net.Conn, error) {
	if timeout <= 0 {
		timeout = jdwp.HandshakeTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	first := &firstBytes{Conn: c}
	tc := key.Client(first)
	err := tc.HandshakeContext(ctx)
	if err == nil {
		first.kept, first.done = nil, true // the session's reads keep nothing
		return tc, nil
	}
	defer c.Close()
	addr := peerName(c)
	var rec tls.RecordHeaderError
	switch {
	case errors.As(err, &rec) && tunnel.IsNearHelloStart(rec.RecordHeader[:]):
		// A refusal in the tunnel's own answer, sent before any TLS: the
		// near half's handshake limits (a keyed near half answers nothing
		// else in the clear). TLS read more than the record header.
		var refusal *tunnel.RefusalError
		if _, err := tunnel.ReadNearHello(io.MultiReader(bytes.NewReader(first.kept), c)); errors.As(err, &refusal) && refusal.Status != tunnel.StatusKey {
			return nil, fmt.Errorf("scache: the near half at %s: %w", addr, refusal)
		}
		fallthrough
	case errors.As(err, &rec):
		return nil, fmt.Errorf("%w: the near half at %s answered in the clear: it has no tunnel key; give both halves -key FILE (this one: %s)", ErrWrongTunnelKey, addr, key.Fingerprint())
	case errors.As(err, new(*foreignCertificate)):
		return nil, fmt.Errorf("the near half at %s holds another tunnel key than this one: %w; give both halves the same -key FILE", addr, err)
	}
	return nil, fmt.Errorf("scache: the keyed tunnel to the near half at %s: %w", addr, err)
}

// handshakeFailure names why a TLS handshake of the tunnel failed, as the
// near half sees it: a certificate that is not the pinned one, records
// that do not decrypt (not a fresh handshake: a recording of another
// session replayed, or bytes altered on the way), or another failure.
// Each wraps ErrWrongTunnelKey once.
func handshakeFailure(err error) error {
	switch text := err.Error(); {
	case errors.Is(err, ErrWrongTunnelKey):
		return err
	case strings.Contains(text, "bad record MAC"): // crypto/tls names its alerts so
		return fmt.Errorf("%w: not a fresh TLS handshake: the peer's records were made for another session (a recording replayed) or altered on the way", ErrWrongTunnelKey)
	case strings.Contains(text, "remote error: tls: bad certificate"):
		return fmt.Errorf("%w: the peer refused this half's certificate: it pins another key", ErrWrongTunnelKey)
	}
	return fmt.Errorf("%w: %w", ErrWrongTunnelKey, err)
}

// firstBytes is a connection that keeps the first bytes read from it (up
// to maxKept) until done: what a TLS handshake read of a refusal sent in
// the clear.
type firstBytes struct {
	net.Conn
	kept []byte
	done bool // set once the handshake succeeded, before the session reads
}

const maxKept = 4096

func (c *firstBytes) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if room := maxKept - len(c.kept); !c.done && room > 0 {
		c.kept = append(c.kept, b[:min(n, room)]...)
	}
	return n, err
}

// OnLoopback reports whether a listen address ("127.0.0.1:8701",
// "[::1]:8701", "localhost:8701") takes connections from this machine only.
// A near half listening elsewhere without a tunnel key lets anyone who
// reaches the port run code in the VM: the example commands refuse it.
func OnLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
