// Command replay is scache replay, where the benchmarks are: it replays
// captured JDWP sessions through the Speculator and reports what speculation
// would have saved. With no file, it replays the traces embedded in the
// binary, real JDI sessions against HotSpot 17:
//
//	go run ./benchmarks/replay [flags] [FILE ...]
//
// It takes scache replay's flags (go run ./cmd/scache help replay).
package main

import (
	"context"
	"os"

	"github.com/jdwpscache/scache/internal/cli/replaycmd"
)

func main() {
	os.Exit(replaycmd.Run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
