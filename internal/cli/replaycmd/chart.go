package replaycmd

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/jdwpscache/scache/internal/replay"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// drawChart plots the simulated wait against RTT, one line per mode, summed
// over the traces replayed (the title says how many).
func drawChart(path string, results []replay.Result, rtts []time.Duration, traces int) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".svg" && ext != ".png" {
		return fmt.Errorf("%s: want a .svg or .png file", path)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Debugger wait by round-trip time, summed over %d traces", traces)
	p.X.Label.Text = "RTT (ms)"
	p.Y.Label.Text = "simulated wait (s)"
	sorted := append([]time.Duration(nil), rtts...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	var lines []any
	for _, m := range replay.Modes {
		pts := plotter.XYs{}
		for _, d := range sorted {
			var total time.Duration
			n := 0
			for _, r := range results {
				if r.Mode == m {
					total += r.Wait[d]
					n++
				}
			}
			if n > 0 {
				pts = append(pts, plotter.XY{X: ms(d), Y: total.Seconds()})
			}
		}
		if len(pts) > 0 {
			lines = append(lines, string(m), pts)
		}
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return err
	}
	return p.Save(6*vg.Inch, 4*vg.Inch, path)
}
