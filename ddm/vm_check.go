package ddm

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jdwpscache/scache/jdwp"
)

// IsAndroidVM reports whether a VirtualMachine.Version reply names one of
// Android's VMs: Dalvik, or ART (whose java.vm.name is "Dalvik" too). They
// are the only VMs that speak DDM.
func IsAndroidVM(v *jdwp.VMVersionReply) bool {
	return strings.Contains(v.VMName, "Dalvik") || strings.Contains(v.Description, "Android")
}

// CheckVM asks the VM its name (VirtualMachine.Version) and returns
// ErrNotDDMAware for a VM that is not Android's; no DDM is sent to it after
// that. Say it before Hello on a connection that may reach any VM.
//
// DDM must not reach HotSpot: its JDWP agent reads the command set of a
// packet as a signed byte, so DDM's 0xC7 is -57, and it looks that up in
// its table of command sets, 57 entries before the table's start. What
// lies there is whatever the heap holds: usually the agent answers
// NOT_IMPLEMENTED, sometimes the VM crashes (SIGSEGV in
// debugDispatch_getHandler, seen on OpenJDK 17).
//
// A VM that answers Version with an error is not HotSpot (whose agent
// always answers it): CheckVM lets it through. Asking the version makes an
// ART VM load its JDWP agent, as a debugger's first command does, which a
// HELO alone does not: on a connection known to reach Android (adb's
// jdwp:<pid>), say Hello without it.
func (c *Client) CheckVM(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var v jdwp.VMVersionReply
	err := c.conn.Call(ctx, &jdwp.VMVersionCommand{}, &v)
	var re *jdwp.ReplyError
	switch {
	case errors.As(err, &re):
		return nil // not HotSpot's agent: HELO decides
	case err != nil:
		return fmt.Errorf("ddm: asking the VM's version: %w", err)
	case IsAndroidVM(&v):
		return nil
	}
	return c.notDDMAware(fmt.Errorf("it is %s %s, not an Android VM (DDM is not sent to it)", v.VMName, v.VMVersion))
}
