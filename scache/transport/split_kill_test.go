package transport_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// splitSessionParts is a real session through a split proxy whose halves
// the test can kill: each half's Relay runs under a context of its own.
type splitSessionParts struct {
	dbg               *jdwp.Conn
	killNear, killFar context.CancelFunc
	nearDone, farDone chan error
	near, far         chan *transport.Relay // each half's Relay, once it runs
}

// startKillableSplit connects a debugger to a real VM at vmAddr through a
// far and a near half on loopback.
func startKillableSplit(t *testing.T, vmAddr string) *splitSessionParts {
	nearLn, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	farLn, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	nearCtx, killNear := context.WithCancel(context.Background())
	farCtx, killFar := context.WithCancel(context.Background())
	s := &splitSessionParts{killNear: killNear, killFar: killFar, nearDone: make(chan error, 1), farDone: make(chan error, 1),
		near: make(chan *transport.Relay, 1), far: make(chan *transport.Relay, 1)}
	run := func(ctx context.Context, half transport.Half, ln net.Listener, target string, done chan<- error, relay chan<- *transport.Relay) {
		c, err := ln.Accept()
		ln.Close()
		if err != nil {
			done <- err
			return
		}
		up, err := net.Dial("tcp", target)
		if err != nil {
			c.Close()
			done <- err
			return
		}
		r := newRelay(t, transport.WithSplit(half))
		relay <- r
		done <- r.Run(ctx, c, up)
	}
	go run(nearCtx, transport.NearHalf, nearLn, vmAddr, s.nearDone, s.near)
	go run(farCtx, transport.FarHalf, farLn, nearLn.Addr().String(), s.farDone, s.far)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.dbg, err = jdwp.Dial(ctx, farLn.Addr().String())
	require.NoError(t, err)
	return s
}

// TestKillingEitherHalfEndsTheDebuggersSession kills the near or the far
// half at several points of a real session (a HotSpot VM, stopped and
// inspected): the debugger's connection ends, then its commands fail, the
// other half's Run returns an error (the far half's names the lost tunnel),
// and no goroutine is left behind.
func TestKillingEitherHalfEndsTheDebuggersSession(t *testing.T) {
	jvmtest.Require(t)
	for _, half := range []string{"near", "far"} {
		for _, after := range []int{0, 1, 3, 6} {
			t.Run(fmt.Sprintf("%s after %d commands", half, after), func(t *testing.T) {
				vm := jvmtest.Start(t, "Debuggee", "3")
				defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
				s := startKillableSplit(t, vm.Addr)
				defer s.dbg.Close()
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				require.NoError(t, s.dbg.Call(ctx, &jdwp.VMIDSizesCommand{}, nil))
				var threads jdwp.ObjectIDsReply
				cmds := []func() error{
					func() error { return s.dbg.Call(ctx, &jdwp.VMVersionCommand{}, nil) },
					func() error { return s.dbg.Call(ctx, &jdwp.VMAllThreadsCommand{}, &threads) },
					func() error { return s.dbg.Call(ctx, &jdwp.VMCapabilitiesNewCommand{}, nil) },
					func() error { return s.dbg.Call(ctx, &jdwp.VMSuspendCommand{}, nil) },
					func() error {
						return s.dbg.Call(ctx, &jdwp.ThreadFramesCommand{Thread: threads.IDs[0], StartFrame: 0, Length: -1}, nil)
					},
					func() error { return s.dbg.Call(ctx, &jdwp.ThreadNameCommand{Thread: threads.IDs[0]}, nil) },
					func() error { return s.dbg.Call(ctx, &jdwp.VMResumeCommand{}, nil) },
				}
				for _, c := range cmds[:after] {
					require.NoError(t, c())
				}
				var otherDone chan error
				if half == "near" {
					s.killNear()
					otherDone = s.farDone
				} else {
					s.killFar()
					otherDone = s.nearDone
				}
				// The debugger's next command may still be answered from what
				// the far half holds; its connection ends all the same, and
				// then every command fails.
				_ = cmds[after]()
				select {
				case <-s.dbg.Done():
				case <-ctx.Done():
					t.Fatal("the debugger's connection stayed open")
				}
				require.Error(t, cmds[after]())
				err := <-otherDone
				// A half shut down by its context tells the other why in
				// its end frame, which ends the session cleanly there; if
				// the frame cannot leave in time, the other half sees the
				// tunnel lost.
				other := <-s.near
				if half == "near" {
					other = <-s.far
				}
				if err != nil {
					require.True(t, errors.Is(err, transport.ErrTunnelLost), "the other half's Run: %v", err)
				} else {
					require.Contains(t, other.EndReason(), "the "+half+" half ended the session: the "+half+" half is shutting down")
				}
				if half == "near" {
					require.ErrorIs(t, <-s.nearDone, context.Canceled)
				} else {
					require.ErrorIs(t, <-s.farDone, context.Canceled)
				}
			})
		}
	}
}
