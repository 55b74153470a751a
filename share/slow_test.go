package share_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/scachetest"
	"github.com/jdwpscache/scache/share"
	"github.com/stretchr/testify/require"
)

// serveModel serves a model VM's JDWP agent on a loopback port for one connection.
func serveModel(t *testing.T, vm *scachetest.ModelVM) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		if c, err := ln.Accept(); err == nil {
			scachetest.Serve(c, vm)
		}
	}()
	return ln.Addr().String()
}

// logLines passes each log line on.
type logLines chan string

func (l logLines) Write(p []byte) (int, error) {
	l <- string(p)
	return len(p), nil
}

// TestAClientThatDoesNotReadStallsNobody: one client sends thousands of
// AllClasses commands (40 MB of replies, far more than socket buffers hold)
// and reads nothing;
// another client is still answered, and the first is dropped once what
// waits for it passes the bound, with the reason logged. (Before, the VM's
// packets were written to clients from the goroutine that read them: the
// whole session froze until the flooding client left.)
func TestAClientThatDoesNotReadStallsNobody(t *testing.T) {
	vm := scachetest.NewModelVM(jdwp.DefaultIDSizes)
	for i := 0; i < 200; i++ {
		vm.AddClass(fmt.Sprintf("Lcom/example/SomeRatherLongPackageName/Class%d;", i), 1, false, false)
	}
	conn, err := net.Dial("tcp", serveModel(t, vm))
	require.NoError(t, err)
	s, err := share.New(conn)
	require.NoError(t, err)
	logs := make(logLines, 16)
	s.ClientQueueBytes = 1 << 20
	s.Logger = slog.New(slog.NewTextHandler(logs, nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	defer func() {
		cancel()
		require.NoError(t, <-served)
		s.Close()
	}()

	// The flooding client.
	flood, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer flood.Close()
	require.NoError(t, jdwp.DebuggerHandshake(flood, 0))
	var burst []byte
	for id := uint32(1); id <= 4000; id++ {
		burst = jdwp.AppendCommandPacket(burst, id, &jdwp.VMAllClassesCommand{}, jdwp.DefaultIDSizes)
	}
	go func() { _, _ = flood.Write(burst) }()

	// The other client is answered all the same.
	other, err := jdwp.Dial(ctx, ln.Addr().String())
	require.NoError(t, err)
	defer other.Close()
	var sizes jdwp.VMIDSizesReply
	callCtx, stop := context.WithTimeout(ctx, time.Minute) // a guard against a hang, not a measure
	defer stop()
	require.NoError(t, other.Call(callCtx, &jdwp.VMIDSizesCommand{}, &sizes))
	require.Equal(t, jdwp.DefaultIDSizes, sizes.Sizes)
	for i := 0; i < 50; i++ {
		require.NoError(t, other.Call(callCtx, &jdwp.VMIDSizesCommand{}, &sizes))
	}

	// The flooding client is dropped, and why is logged. (The log comes
	// first: reading the flooding client before it is dropped would drain
	// what waits for it below the bound.)
	select {
	case line := <-logs:
		require.Contains(t, line, "fell behind")
	case <-time.After(time.Minute): // a guard against a hang
		t.Fatal("nothing logged about the flooding client")
	}
	_ = flood.SetReadDeadline(time.Now().Add(time.Minute)) // a guard against a hang
	buf := make([]byte, 64<<10)
	var readErr error
	for readErr == nil {
		_, readErr = flood.Read(buf)
	}
	var timeout net.Error
	require.False(t, errors.As(readErr, &timeout) && timeout.Timeout(), "the flooding client's connection was not closed")
}
