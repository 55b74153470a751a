package jvmtest

import (
	"context"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
)

// AwaitVMStart waits for the VMStart event on c, a connection to a VM
// started with suspend=y, as JDI does before it resumes anything.
// OpenJDK's agent suspends the VM for that event on its event helper thread
// and only then writes it, so a Resume or Dispose its command reader
// handles first resumes nothing, and the VM stays suspended (seen now and
// then under the load of a full test run).
func AwaitVMStart(ctx context.Context, t testing.TB, c *jdwp.Conn) {
	t.Helper()
	select {
	case e := <-c.Events():
		var start jdwp.Composite
		err := jdwp.Unmarshal(jdwp.Data(e), jdwp.DefaultIDSizes, &start)
		if err != nil || len(start.Events) == 0 || start.Events[0].Kind() != jdwp.EventVMStart {
			t.Fatalf("the VM's first event is not VMStart: %x (%v)", e, err)
		}
	case <-ctx.Done():
		t.Fatal("no VMStart event")
	}
}
