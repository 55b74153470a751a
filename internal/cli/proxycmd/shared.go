package proxycmd

import (
	"context"
	"fmt"
	"log/slog"
	"net"

	"github.com/jdwpscache/scache/internal/cli/target"
	"github.com/jdwpscache/scache/internal/observe"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/share"
)

// serveShared (-share) holds one VM connection and lets every client that
// connects to ln attach to it; statsFile, if set, gets the counters of all
// of them when the VM connection ends.
func serveShared(ctx context.Context, ln net.Listener, dial target.DialFunc, opts []scache.Option, statsFile string, log *slog.Logger) error {
	vm, err := dial(ctx)
	if err != nil {
		ln.Close()
		return fmt.Errorf("dialing the VM: %w", err)
	}
	s, err := share.New(vm, opts...)
	if err != nil {
		ln.Close()
		return err
	}
	defer s.Close()
	s.Logger = log
	err = s.Serve(ctx, ln)
	total, per := s.Stats()
	log.Info("shared session ended", "clients", len(per), "synthetic", total.Synthetic, "hits", total.Hits,
		"belayed", total.Belayed, "misses", total.Misses)
	if statsFile != "" {
		if werr := observe.WriteStats(statsFile, total, nil); werr != nil {
			log.Error("writing stats", "err", werr)
		}
	}
	return err
}
