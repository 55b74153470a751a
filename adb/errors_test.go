package adb_test

import (
	"context"
	"io"
	"net"
	"os/exec"
	"testing"
	"time"

	"github.com/jdwpscache/scache/adb"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// fakeServer answers each connection with canned bytes, after reading the
// request, then closes (or hangs, for reply nil).
func fakeServer(t *testing.T, reply []byte) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	t.Cleanup(func() {
		ln.Close()
		<-done
	})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			var h [4]byte
			if _, err := io.ReadFull(c, h[:]); err == nil {
				_, _ = c.Read(make([]byte, 1024))
			}
			if reply == nil {
				_, _ = c.Read(make([]byte, 1)) // hang until the client gives up
			} else {
				_, _ = c.Write(reply)
			}
			c.Close()
		}
	}()
	return ln.Addr().String()
}

func TestBadServers(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // runs last: after the fake servers stop
	cases := []struct {
		name  string
		reply []byte
		check func(t *testing.T, err error)
	}{
		{"FAIL with a message", []byte("FAIL0010device not found"), func(t *testing.T, err error) {
			require.ErrorIs(t, err, adb.ErrDeviceNotFound)
			var se *adb.ServerError
			require.ErrorAs(t, err, &se)
			require.Equal(t, "device not found", se.Message)
		}},
		{"closed mid-reply", []byte("OKAY00"), func(t *testing.T, err error) { require.Error(t, err) }},
		{"malformed length", []byte("OKAYzzzz"), func(t *testing.T, err error) { require.ErrorIs(t, err, adb.ErrProtocol) }},
		{"not a status", []byte("HTTP/1.1 400 Bad Request\r\n"), func(t *testing.T, err error) {
			require.ErrorIs(t, err, adb.ErrProtocol)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl := &adb.Client{Addr: fakeServer(t, c.reply)}
			_, err := cl.ServerVersion(ctx(t))
			c.check(t, err)
		})
	}
}

func TestDeadlineOnASilentServer(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // runs last: after the fake servers stop
	cl := &adb.Client{Addr: fakeServer(t, nil)}
	c, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := cl.Devices(c, false)
	require.Error(t, err)
}

func TestNoServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	_, err = (&adb.Client{Addr: addr}).ServerVersion(ctx(t))
	require.ErrorIs(t, err, adb.ErrServerNotAvailable)
	require.Contains(t, err.Error(), "start-server")
}

func TestUnknownSerialAndPidThroughARealServer(t *testing.T) {
	c := adbServer(t)
	d := device(t)
	serial := connect(t, c, d)
	_, err := c.JDWP(ctx(t), adb.Selector{Serial: "no-such-device"}, 1)
	require.ErrorIs(t, err, adb.ErrDeviceNotFound)
	_, err = c.Shell(ctx(t), adb.Selector{Serial: "no-such-device"}, "echo hi")
	require.ErrorIs(t, err, adb.ErrDeviceNotFound)
	// An unknown pid: the device refuses the stream.
	conn, err := c.JDWP(ctx(t), adb.Selector{Serial: serial}, 999999)
	if err == nil {
		// Some servers acknowledge before the device answers; the stream then ends at once.
		n, rerr := conn.Read(make([]byte, 1))
		require.Zero(t, n)
		require.Error(t, rerr)
		conn.Close()
	} else {
		require.Error(t, err)
	}
}

func TestForwards(t *testing.T) {
	c := adbServer(t)
	d := device(t)
	serial := connect(t, c, d)
	sel := adb.Selector{Serial: serial}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	local := "tcp:" + portOf(ln.Addr().String())
	ln.Close()
	_, err = c.CreateForward(ctx(t), sel, local, "jdwp:4242")
	require.NoError(t, err)
	fwds, err := c.ListForwards(ctx(t))
	require.NoError(t, err)
	require.Equal(t, []adb.Forward{{Serial: serial, Local: local, Remote: "jdwp:4242"}}, fwds)
	_, port, _ := net.SplitHostPort(c.Addr)
	out, err := exec.Command("adb", "-P", port, "forward", "--list").CombinedOutput()
	require.NoError(t, err)
	require.Contains(t, string(out), local+" jdwp:4242")
	require.NoError(t, c.RemoveForward(ctx(t), sel, local))
	fwds, err = c.ListForwards(ctx(t))
	require.NoError(t, err)
	require.Empty(t, fwds)
}

func portOf(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}
