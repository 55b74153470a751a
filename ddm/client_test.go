package ddm_test

import (
	"context"
	"encoding/binary"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/jdwpscache/scache/ddm"
	"github.com/jdwpscache/scache/ddm/ddmtest"
	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache/transport"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func handleAll(c *ddm.Client, types ...ddm.Type) chan ddm.Chunk {
	ch := make(chan ddm.Chunk, 100)
	for _, tp := range types {
		c.Handle(tp, func(chunk ddm.Chunk, isReply bool, id uint32) {
			if !isReply {
				if !ddm.FromVM(id) {
					panic("a VM-initiated packet without bit 31")
				}
				ch <- ddm.Chunk{Type: chunk.Type, Data: append([]byte(nil), chunk.Data...)}
			}
		})
	}
	return ch
}

func next(t *testing.T, ch chan ddm.Chunk) ddm.Chunk {
	t.Helper()
	select {
	case c := <-ch:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no chunk from the VM within 10s")
		return ddm.Chunk{}
	}
}

func TestToolAndFakeVMOverTCP(t *testing.T) {
	defer goleak.VerifyNone(t)
	vm, err := ddmtest.Start(ddmtest.Config{PID: 1234, VMIdent: "FakeVM v1", AppName: "com.example", Package: "com.example",
		WaitingForDebugger: true,
		Threads:            []ddmtest.Thread{{ID: 1, Name: "main", Status: ddm.StateRunning}, {ID: 7, Name: "worker", Status: ddm.StateSleeping, Daemon: true}}})
	require.NoError(t, err)
	defer vm.Close()

	// The handlers are in place before HELO, so that the WAIT it causes is seen.
	nc, err := net.Dial("tcp", vm.Addr)
	require.NoError(t, err)
	require.NoError(t, jdwp.DebuggerHandshake(nc, 5*time.Second))
	c := ddm.NewClient(jdwp.NewConnFrom(nc, ddm.FirstToolID))
	defer c.Close()
	events := handleAll(c, ddm.TypeTHCR, ddm.TypeTHDE, ddm.TypeTHNM, ddm.TypeTHST, ddm.TypeHPIF, ddm.TypeHPST,
		ddm.TypeHPSG, ddm.TypeHPEN, ddm.TypeWAIT)

	h, err := c.Hello(ctx(t))
	require.NoError(t, err)
	require.Equal(t, uint32(1234), h.PID)
	require.Equal(t, "FakeVM v1", h.VMIdent)
	require.Equal(t, "com.example", h.PackageName)
	require.Equal(t, 5, h.Fields)
	require.Equal(t, ddm.TypeWAIT, next(t, events).Type, "waiting for a debugger")

	chunks, err := c.Request(ctx(t), &ddm.Empty{Type: ddm.TypeFEAT})
	require.NoError(t, err)
	var feat ddm.Features
	require.NoError(t, ddm.Decode(chunks[0], &feat))
	require.Contains(t, feat.Names, "hprof-heap-dump")
	events2 := handleAll(c, ddm.TypeAPNM)
	vm.SetAppName("com.example.app")
	var apnm ddm.AppName
	require.NoError(t, ddm.Decode(next(t, events2), &apnm))
	require.Equal(t, "com.example.app", apnm.Name)

	// Thread notifications: a THCR for each live thread, then births and deaths.
	_, err = c.Request(ctx(t), &ddm.ThreadNotify{Enable: true})
	require.NoError(t, err)
	names := map[uint32]string{}
	for i := 0; i < 2; i++ {
		var cr ddm.ThreadCreated
		require.NoError(t, ddm.Decode(next(t, events), &cr))
		names[cr.ID] = cr.Name
	}
	require.Equal(t, map[uint32]string{1: "main", 7: "worker"}, names)
	vm.StartThread(ddmtest.Thread{ID: 9, Name: "pool-1"})
	var cr ddm.ThreadCreated
	require.NoError(t, ddm.Decode(next(t, events), &cr))
	require.Equal(t, "pool-1", cr.Name)
	vm.EndThread(7)
	var de ddm.ThreadDied
	require.NoError(t, ddm.Decode(next(t, events), &de))
	require.Equal(t, uint32(7), de.ID)
	vm.RenameThread(9, "pool-1-thread-1")
	var nm ddm.ThreadRenamed
	require.NoError(t, ddm.Decode(next(t, events), &nm))
	require.Equal(t, ddm.ThreadRenamed{ID: 9, Name: "pool-1-thread-1"}, nm)

	// Periodic status.
	vm.SetStatus(1, ddm.StateWaiting)
	_, err = c.Request(ctx(t), &ddm.ThreadStatusInterval{Millis: 5})
	require.NoError(t, err)
	var st ddm.ThreadStatus
	require.NoError(t, ddm.Decode(next(t, events), &st))
	require.Len(t, st.Threads, 2)
	require.Equal(t, ddm.ThreadInfo{ID: 1, Status: ddm.StateWaiting, TID: 1001}, st.Threads[0])
	_, err = c.Request(ctx(t), &ddm.ThreadStatusInterval{Millis: 0})
	require.NoError(t, err)
	for len(events) > 0 {
		<-events // statuses sent before the stop
	}

	// Heap info and segments.
	_, err = c.Request(ctx(t), &ddm.HeapInfoRequest{When: ddm.WhenImmediately})
	require.NoError(t, err)
	var hi ddm.HeapInfo
	require.NoError(t, ddm.Decode(next(t, events), &hi))
	require.Equal(t, uint32(42), hi.Heaps[0].Objects)
	_, err = c.Request(ctx(t), &ddm.Empty{Type: ddm.TypeHPGC})
	require.NoError(t, err)
	require.Equal(t, ddm.TypeHPST, next(t, events).Type)
	var pieces []ddm.HeapSegment
	for i := 0; i < 2; i++ {
		seg := ddm.HeapSegment{Type: ddm.TypeHPSG}
		require.NoError(t, ddm.Decode(next(t, events), &seg))
		pieces = append(pieces, seg)
	}
	require.Equal(t, ddm.TypeHPEN, next(t, events).Type)
	bitmap, err := ddm.Bitmap(pieces)
	require.NoError(t, err)
	require.Len(t, bitmap, 0x400)

	// What the VM does not understand: a FAIL.
	_, err = c.Request(ctx(t), &ddm.Exit{Status: 3})
	var f *ddm.Fail
	require.ErrorAs(t, err, &f)
	require.Contains(t, f.Message, "EXIT")
}

// TestSilentVMIsNotDDMAware: a VM that never answers HELO (as current VMs do
// for chunks they have no handler for) is reported as not DDM-aware after the timeout.
func TestSilentVMIsNotDDMAware(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		if jdwp.VMHandshake(c, 0) != nil {
			return
		}
		_, _ = c.Read(make([]byte, 1024)) // the HELO, never answered
		_, _ = c.Read(make([]byte, 1))    // until the tool hangs up
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	require.NoError(t, jdwp.DebuggerHandshake(nc, 0))
	c := ddm.NewClient(jdwp.NewConnFrom(nc, ddm.FirstToolID))
	defer c.Close()
	c.SetTimeout(50 * time.Millisecond)
	_, err = c.Hello(ctx(t))
	require.ErrorIs(t, err, ddm.ErrNotDDMAware)
	_, err = c.Request(ctx(t), &ddm.ThreadNotify{Enable: true})
	require.ErrorIs(t, err, ddm.ErrNotDDMAware, "no further DDM is sent")
}

// TestHotSpotIsToldNothingOfDDM attaches to a real HotSpot VM's JDWP agent
// as to any VM: the agent is asked its version, is not an Android VM, and
// never receives a packet of DDM's command set (HotSpot reads 0xC7 as -57
// and may crash on it); the connection stays usable for JDWP.
func TestHotSpotIsToldNothingOfDDM(t *testing.T) {
	vm := jvmtest.Start(t, "Debuggee", "1")
	nc, err := net.Dial("tcp", vm.Addr)
	require.NoError(t, err)
	rec := &recordingConn{Conn: nc}
	require.NoError(t, jdwp.DebuggerHandshake(rec, 0))
	jc := jdwp.NewConnFrom(rec, ddm.FirstToolID)
	c := ddm.NewClient(jc)
	defer c.Close()
	err = c.CheckVM(ctx(t))
	require.ErrorIs(t, err, ddm.ErrNotDDMAware)
	require.Contains(t, err.Error(), "OpenJDK")
	_, err = c.Hello(ctx(t))
	require.ErrorIs(t, err, ddm.ErrNotDDMAware, "no HELO after CheckVM said no")
	var v jdwp.VMVersionReply
	require.NoError(t, jc.Call(ctx(t), &jdwp.VMVersionCommand{}, &v))
	require.Equal(t, int32(17), v.JDWPMajor)
	require.Equal(t, 2, rec.commands(t), "two Version commands")
	require.Zero(t, rec.ddmCommands, "no DDM packet reached HotSpot")
}

// TestAttachAnyToAnAndroidVM: AttachAny asks the version of a VM that
// answers as ART does, and goes on with HELO.
func TestAttachAnyToAnAndroidVM(t *testing.T) {
	vm, err := ddmtest.Start(ddmtest.Config{PID: 77, VMIdent: "FakeVM", AppName: "app"})
	require.NoError(t, err)
	defer vm.Close()
	c, err := ddm.Dial(ctx(t), vm.Addr)
	require.NoError(t, err)
	defer c.Close()
	require.Contains(t, c.Features(), "hprof-heap-dump")
}

func TestIsAndroidVM(t *testing.T) {
	for _, tc := range []struct {
		v    jdwp.VMVersionReply
		want bool
	}{
		{jdwp.VMVersionReply{VMName: "Dalvik", VMVersion: "2.1.0"}, true},                      // ART, with OpenJDK's agent
		{jdwp.VMVersionReply{VMName: "DalvikVM", Description: "Android DalvikVM 1.6.0"}, true}, // ART's own agent, and Dalvik
		{jdwp.VMVersionReply{VMName: "OpenJDK 64-Bit Server VM", VMVersion: "17.0.15+6"}, false},
		{jdwp.VMVersionReply{VMName: "Eclipse OpenJ9 VM"}, false},
		{jdwp.VMVersionReply{}, false},
	} {
		require.Equal(t, tc.want, ddm.IsAndroidVM(&tc.v), "%+v", tc.v)
	}
}

// recordingConn counts the JDWP commands written through it, and those of
// DDM's command set (whole packets: jdwp.Conn writes one per Write).
type recordingConn struct {
	net.Conn
	mu                 sync.Mutex
	written            []byte
	ddmCommands, total int
}

func (c *recordingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.written = append(c.written, p...)
	c.mu.Unlock()
	return c.Conn.Write(p)
}

// commands parses what was written after the handshake and returns the
// number of commands; it counts DDM's in ddmCommands.
func (c *recordingConn) commands(t *testing.T) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.written[len(jdwp.HandshakeBytes):]
	c.total, c.ddmCommands = 0, 0
	for len(b) > 0 {
		require.GreaterOrEqual(t, len(b), 11)
		n := binary.BigEndian.Uint32(b)
		require.LessOrEqual(t, int(n), len(b))
		h, err := jdwp.ParseHeader(b[:n])
		require.NoError(t, err)
		if !h.IsReply() {
			c.total++
			if h.Cmd().Set == ddm.CommandSet {
				c.ddmCommands++
			}
		}
		b = b[h.Length:]
	}
	return c.total
}

// TestThroughTheSpeculator: DDM traffic passes the Speculator's relay
// untouched, with tool ids (0x40000000 on) and VM ids (bit 31) apart from
// the synthetic range.
func TestThroughTheSpeculator(t *testing.T) {
	vm, err := ddmtest.Start(ddmtest.Config{PID: 9, VMIdent: "FakeVM", AppName: "app",
		Threads: []ddmtest.Thread{{ID: 1, Name: "main", Status: ddm.StateRunning}}})
	require.NoError(t, err)
	defer vm.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	relay, err := transport.NewRelay()
	require.NoError(t, err)
	spec := relay.Speculator()
	done := make(chan error, 1)
	go func() {
		d, err := ln.Accept()
		ln.Close()
		if err != nil {
			done <- err
			return
		}
		v, err := net.Dial("tcp", vm.Addr)
		if err != nil {
			done <- err
			return
		}
		done <- relay.Run(context.Background(), d, v)
	}()
	c, err := ddm.Dial(ctx(t), ln.Addr().String())
	require.NoError(t, err)
	events := handleAll(c, ddm.TypeTHCR, ddm.TypeTHST)
	_, err = c.Request(ctx(t), &ddm.ThreadNotify{Enable: true})
	require.NoError(t, err)
	var cr ddm.ThreadCreated
	require.NoError(t, ddm.Decode(next(t, events), &cr))
	require.Equal(t, "main", cr.Name)
	vm.SendStatus()
	var st ddm.ThreadStatus
	require.NoError(t, ddm.Decode(next(t, events), &st))
	require.Len(t, st.Threads, 1)
	require.NoError(t, c.Close())
	require.NoError(t, <-done)
	stats := spec.Stats()
	require.True(t, stats.Enabled)
	require.Equal(t, int64(2), stats.Synthetic, "the id sizes and the version asked at the handshake, and nothing for DDM's packets")
	require.Equal(t, int64(4), stats.PacketsUp, "Version (Dial asks it of any VM), HELO, FEAT and THEN")
	require.Equal(t, int64(7), stats.PacketsDown, "the id sizes' reply (the VM answers in order: before the others), four replies, THCR, THST")
}
