// Package target declares, in one place, the flags that say which VM a
// command reaches: a JDWP address (-vm), or an Android app through the adb
// server (-app NAME or -pid N, on -serial's device, through -adb's server).
// scache proxy and scache threads both take them.
package target

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"

	"github.com/jdwpscache/scache/adb"
)

// A DialFunc opens a connection to the VM: one per debugger session.
type DialFunc = func(ctx context.Context) (net.Conn, error)

// Flags say which VM to reach.
type Flags struct {
	VM     string // the VM's JDWP address
	App    string // the Android app's process name
	PID    int    // the Android process's pid
	Serial string // the device's serial
	ADB    string // the adb server's address
	vmSet  bool   // -vm was given, not defaulted
}

// Register declares the target's flags on fs; -vm defaults to defaultVM
// and is described by vmUsage.
func Register(fs *flag.FlagSet, defaultVM, vmUsage string) *Flags {
	t := &Flags{}
	fs.StringVar(&t.VM, "vm", defaultVM, vmUsage)
	fs.StringVar(&t.App, "app", "", "reach the Android app of this process name (com.example.app) through adb instead of -vm, "+
		"waiting for it to start and following it when it restarts")
	fs.IntVar(&t.PID, "pid", 0, "reach the debuggable Android process with this pid through adb instead of -vm")
	fs.StringVar(&t.Serial, "serial", "", "the device's serial, for -app and -pid (default: the only device)")
	fs.StringVar(&t.ADB, "adb", "", "the adb server's address, for -app and -pid (default 127.0.0.1:$ANDROID_ADB_SERVER_PORT or :5037)")
	return t
}

// ThroughADB says whether the VM is an app reached through adb.
func (t *Flags) ThroughADB() bool { return t.App != "" || t.PID != 0 }

// Check checks the target's flags against each other; fs is the parsed
// flag set they were declared on. adbOnly names other flags of the
// command that need the adb server, set or not.
func (t *Flags) Check(fs *flag.FlagSet, adbUsed bool) error {
	fs.Visit(func(f *flag.Flag) { t.vmSet = t.vmSet || f.Name == "vm" })
	switch {
	case t.PID < 0:
		return fmt.Errorf("-pid %d: a process id is positive", t.PID)
	case t.PID > 0 && t.App != "":
		return errors.New("-pid and -app: give one (-app follows the app across restarts)")
	case t.ThroughADB() && t.vmSet:
		return errors.New("-vm and -app or -pid: give one; -vm dials a VM's JDWP address, -app and -pid reach an Android app through adb")
	case !t.ThroughADB() && !adbUsed && (t.Serial != "" || t.ADB != ""):
		return errors.New("-serial and -adb choose the device for -app or -pid")
	}
	return nil
}

// Client returns the adb server's client and the device's selector.
func (t *Flags) Client() (*adb.Client, adb.Selector) {
	return &adb.Client{Addr: t.ADB}, adb.Selector{Serial: t.Serial}
}

// Dialer returns how to reach the VM, and says where in words. With -app
// it starts watching the device's apps, until ctx ends, and logs once
// whether the app runs and, while it does not, that it waits for it.
func (t *Flags) Dialer(ctx context.Context, log *slog.Logger) (DialFunc, string, error) {
	if !t.ThroughADB() {
		addr := t.VM
		return func(ctx context.Context) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "tcp", addr)
		}, addr, nil
	}
	client, sel := t.Client()
	device := "the only device"
	if t.Serial != "" {
		device = "device " + t.Serial
	}
	if t.PID > 0 {
		pid := t.PID
		return func(ctx context.Context) (net.Conn, error) { return client.JDWP(ctx, sel, pid) },
			fmt.Sprintf("jdwp:%d on %s", pid, device), nil
	}
	watch, err := client.WatchApps(ctx, sel)
	if err != nil {
		return nil, "", fmt.Errorf("listing the apps: %w", err)
	}
	waiter := &appWaiter{watch: watch, app: t.App, device: device, log: log}
	go announce(ctx, waiter)
	return func(ctx context.Context) (net.Conn, error) { return dialApp(ctx, client, sel, waiter) },
		fmt.Sprintf("jdwp:<the pid of %s> on %s", t.App, device), nil
}
