// Command scache makes Java debugging over slow links fast: it sits
// between a debugger (Android Studio, IntelliJ, VS Code, jdb, any JDI
// client) and a Java VM, speculates the JDWP commands the debugger is about
// to send, and answers them from its cache.
//
//	go install github.com/jdwpscache/scache/cmd/scache@latest
//
//	scache proxy -listen 127.0.0.1:8700 -vm 127.0.0.1:5005   # a VM's JDWP address
//	scache proxy -app com.example.app                         # an Android app, through adb
//	scache proxy -split far -via 'ssh host scache proxy -split near -stdio'  # across a slow link
//	scache replay [FILE ...]                                  # replay captured sessions
//	scache threads -app com.example.app                       # an Android VM's threads, live
//	scache keygen tunnel.key                                  # a key for a split proxy's tunnel
//	scache version
//
// scache help COMMAND (or scache COMMAND -h) prints a command's flags and
// an example. SIGINT and SIGTERM end the proxy's sessions and write their
// stats.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/jdwpscache/scache/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
