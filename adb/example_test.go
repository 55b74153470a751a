package adb_test

import (
	"context"
	"fmt"
	"log"

	"github.com/jdwpscache/scache/adb"
	"github.com/jdwpscache/scache/jdwp"
)

// Find a device, learn its debuggable processes from track-jdwp, and open a
// JDWP connection to one of them through the adb server.
func ExampleClient_JDWP() {
	ctx := context.Background()
	client := &adb.Client{} // 127.0.0.1:$ANDROID_ADB_SERVER_PORT, or :5037

	devices, err := client.Devices(ctx, true)
	if err != nil {
		log.Fatal(err) // adb.ErrServerNotAvailable when no server runs
	}
	if len(devices) == 0 {
		log.Fatal("no device")
	}
	sel := adb.Selector{Serial: devices[0].Serial}

	updates, err := client.TrackJDWP(ctx, sel)
	if err != nil {
		log.Fatal(err)
	}
	pids := <-updates // the first update lists every debuggable process
	if len(pids) == 0 {
		log.Fatal("nothing to debug")
	}

	conn, err := client.JDWP(ctx, sel, pids[0])
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	// The connection carries JDWP from its first byte: handshake, then packets.
	if err := jdwp.DebuggerHandshake(conn, jdwp.HandshakeTimeout); err != nil {
		log.Fatal(err)
	}
	fmt.Println("attached to", pids[0], "on", devices[0].Model)
}

// Attach to an app by its name: wait until a process of that name runs on
// the only device, then open its JDWP connection.
func ExampleClient_WatchApps() {
	ctx := context.Background()
	client := &adb.Client{}
	sel := adb.Selector{} // the only device

	watch, err := client.WatchApps(ctx, sel) // names from track-app, or each VM's HELO
	if err != nil {
		log.Fatal(err)
	}
	app, others, err := watch.Wait(ctx, "com.example.app", func() { fmt.Println("waiting for com.example.app") })
	if err != nil {
		log.Fatal(err)
	}
	for _, o := range others {
		fmt.Printf("also running: %s (pid %d)\n", o.Name, o.PID) // com.example.app:remote
	}
	conn, err := client.JDWP(ctx, sel, app.PID)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
}
