package journal_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jdwpscache/scache/internal/capturetest"
	"github.com/jdwpscache/scache/internal/journal"
	"github.com/jdwpscache/scache/internal/jvmtest"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
	"github.com/stretchr/testify/require"
)

// TestImportOfARealCapture captures a real JDWP session between our client
// and a HotSpot VM with tshark, then imports it: the records are the packets
// the client sent and received, with the debugger told from the VM.
func TestImportOfARealCapture(t *testing.T) {
	for _, format := range []string{"pcapng", "pcap"} {
		t.Run(format, func(t *testing.T) {
			vm := jvmtest.Start(t, "Debuggee", "1")
			_, port, _ := strings.Cut(vm.Addr, ":")
			stop := capturetest.Capture(t, port, format)

			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := jdwp.Dial(ctx, vm.Addr)
			require.NoError(t, err)
			jvmtest.AwaitVMStart(ctx, t, c) // Dispose resumes: not before VMStart
			var sent, received [][]byte
			for _, cmd := range []jdwp.CommandMessage{&jdwp.VMVersionCommand{}, &jdwp.VMIDSizesCommand{},
				&jdwp.VMAllClassesCommand{}, &jdwp.VMAllThreadsCommand{}} {
				data := jdwp.Marshal(cmd, jdwp.DefaultIDSizes)
				reply, err := c.Send(ctx, cmd.Command(), data)
				require.NoError(t, err)
				sent = append(sent, jdwp.AppendCommand(nil, jdwp.PacketID(reply), cmd.Command(), data))
				received = append(received, reply)
			}
			_, err = c.Send(ctx, jdwp.CmdVirtualMachineDispose, nil)
			require.NoError(t, err)
			c.Close()
			require.True(t, vm.Wait(30*time.Second))

			sessions, err := journal.ReadCaptureFile(stop())
			require.NoError(t, err)
			require.Len(t, sessions, 1)
			s := sessions[0]
			require.Equal(t, port, strconv.Itoa(int(s.VM.Port())))
			var up, down [][]byte
			for _, r := range s.Records {
				if r.Direction == scache.Upstream {
					up = append(up, r.Packet)
				} else if h, _ := jdwp.ParseHeader(r.Packet); h.IsReply() {
					down = append(down, r.Packet)
				}
			}
			require.Equal(t, sent, up[:len(sent)])
			require.Equal(t, received, down[:len(received)])
		})
	}
}
