package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"

	"github.com/jdwpscache/scache/internal/observe"
	"github.com/jdwpscache/scache/scache"
	"github.com/jdwpscache/scache/share"
)

// serveShared holds one VM connection and lets every client attach to it.
func serveShared(ctx context.Context, ln net.Listener, cfg config, opts []scache.Option) error {
	var d net.Dialer
	vm, err := d.DialContext(ctx, "tcp", cfg.vmAddr)
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
	s.Logger = slog.Default()
	err = s.Serve(ctx, ln)
	total, per := s.Stats()
	slog.Info("shared session ended", "clients", len(per), "synthetic", total.Synthetic, "hits", total.Hits,
		"belayed", total.Belayed, "misses", total.Misses)
	if cfg.statsFile != "" {
		if werr := observe.WriteStats(cfg.statsFile, total, nil); werr != nil {
			slog.Error("writing stats", "err", werr)
		}
	}
	return err
}
