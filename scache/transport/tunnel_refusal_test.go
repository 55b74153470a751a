package transport_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/logtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
)

// A keyed near half says what happened to a handshake it refused, once:
// a recording of a far half's bytes replayed is not a fresh handshake; a
// far half with another key, or a man in the middle with its own
// certificate, shows a certificate that is not the pinned one.
func TestAKeyedNearHalfNamesWhatItRefused(t *testing.T) {
	key := newKey(t)
	vm := handshakeOnlyVM(t)
	refusal := func(t *testing.T, log *logtest.Buffer) string {
		t.Helper()
		require.Eventually(t, func() bool { return strings.Contains(log.String(), "closing a connection") },
			30*time.Second, time.Millisecond, "the refusal in the near half's log")
		for _, line := range strings.Split(log.String(), "\n") {
			if strings.Contains(line, "closing a connection") {
				requireSaidOnce(t, line)
				return line
			}
		}
		return ""
	}
	t.Run("a replayed recording", func(t *testing.T) {
		log := &logtest.Buffer{}
		near := serveHalf(t, &logtest.Buffer{}, transport.NearHalf, vm, transport.WithTunnelKey(key))
		tap := startTap(t, near)
		far := serveHalf(t, &logtest.Buffer{}, transport.FarHalf, tap.addr, transport.WithTunnelKey(key))
		dbg, err := net.Dial("tcp", far)
		require.NoError(t, err)
		require.NoError(t, jdwp.DebuggerHandshake(dbg, 30*time.Second))
		dbg.Close()
		replayTo := serveHalf(t, log, transport.NearHalf, vm, transport.WithTunnelKey(key))
		c, err := net.Dial("tcp", replayTo)
		require.NoError(t, err)
		_, _ = c.Write(tap.recorded())
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, _ = io.ReadAll(c)
		c.Close()
		require.Contains(t, refusal(t, log), "not a fresh TLS handshake")
	})
	t.Run("a man in the middle", func(t *testing.T) {
		log := &logtest.Buffer{}
		near := serveHalf(t, log, transport.NearHalf, vm, transport.WithTunnelKey(key))
		mitm := newKey(t) // its own key and certificate, TLS 1.3 as a far half speaks it
		c, err := net.Dial("tcp", near)
		require.NoError(t, err)
		defer c.Close()
		tc := mitm.Client(c)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err = tc.HandshakeContext(ctx)
		require.Error(t, err, "the man in the middle pins its own certificate, not the near half's")
		line := refusal(t, log)
		require.Contains(t, line, "refused this half's certificate")
	})
	t.Run("a man in the middle that trusts anything", func(t *testing.T) {
		log := &logtest.Buffer{}
		near := serveHalf(t, log, transport.NearHalf, vm, transport.WithTunnelKey(key))
		cert := selfSigned(t)
		c, err := net.Dial("tcp", near)
		require.NoError(t, err)
		defer c.Close()
		tc := tls.Client(c, &tls.Config{MinVersion: tls.VersionTLS13, InsecureSkipVerify: true, Certificates: []tls.Certificate{cert}})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = tc.HandshakeContext(ctx)
		_, _ = tc.Read(make([]byte, 1)) // the near half's verdict comes after the client's Finished
		line := refusal(t, log)
		require.Contains(t, line, "is not the one this tunnel key pins")
		require.Contains(t, line, key.Fingerprint())
	})
	t.Run("a far half with another key", func(t *testing.T) {
		near := serveHalf(t, &logtest.Buffer{}, transport.NearHalf, vm, transport.WithTunnelKey(key))
		farLog := &logtest.Buffer{}
		far := serveHalf(t, farLog, transport.FarHalf, near, transport.WithTunnelKey(newKey(t)))
		dbg, err := net.Dial("tcp", far)
		require.NoError(t, err)
		defer dbg.Close()
		_ = jdwp.DebuggerHandshake(dbg, 30*time.Second)
		require.Eventually(t, func() bool { return strings.Contains(farLog.String(), "holds another tunnel key") },
			30*time.Second, time.Millisecond)
		for _, line := range strings.Split(farLog.String(), "\n") {
			if strings.Contains(line, "holds another tunnel key") {
				requireSaidOnce(t, line)
				require.Contains(t, line, "is not the one this tunnel key pins")
			}
		}
	})
}

// requireSaidOnce checks that a log line says no part of its error twice
// (the parts are what ": " separates).
func requireSaidOnce(t *testing.T, line string) {
	t.Helper()
	seen := map[string]bool{}
	for _, part := range strings.Split(line, ": ") {
		part = strings.Trim(part, `" `)
		if len(part) < 12 {
			continue
		}
		require.False(t, seen[part], "%q twice in %s", part, line)
		seen[part] = true
	}
}

// selfSigned makes a certificate of a new Ed25519 key, as a man in the
// middle would show.
func selfSigned(t *testing.T) tls.Certificate {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mitm"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, priv)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: priv}
}
