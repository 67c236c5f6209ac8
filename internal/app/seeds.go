package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/ingest/load"
	"github.com/athar-hadith/athar/internal/replica"
	"github.com/athar-hadith/athar/seeds"
)

// Seeds returns the narrations embedded in the binary (seeds/), as load sources.
func Seeds() []load.Source {
	var out []load.Source
	for _, f := range seeds.Files() {
		out = append(out, load.Source{Name: f.Name, Data: f.Data})
	}
	return out
}

// Load runs the one load loop (load.Run) through w, reporting refusals on errOut with a
// progress bar when errOut is a terminal.
func Load(ctx context.Context, w ingest.Writer, srcs []load.Source, errOut io.Writer, opts load.Options) load.Stats {
	opts.Report, opts.Progress = errOut, ProgressBar(errOut, "importing")
	return load.Run(ctx, w, srcs, opts)
}

// ProgressBar returns a progress display on out for work of 50 items or more, or nil when
// out is not a terminal.
func ProgressBar(out io.Writer, what string) func(done, total int) {
	f, ok := out.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	var bar *progressbar.ProgressBar
	return func(done, total int) {
		if total < 50 {
			return
		}
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(out),
				progressbar.OptionSetDescription(what), progressbar.OptionShowCount(),
				progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
		}
		_ = bar.Set(done)
		if done == total {
			_ = bar.Finish()
		}
	}
}

// seedLog logs the embedded seeds if the log is empty, after checking them in a store of
// their own. Replicas starting together on a new database seed it once.
func seedLog(ctx context.Context, rep *replica.Replica, logger *slog.Logger) (bool, error) {
	if rep.Status().Head > 0 {
		return false, nil
	}
	mem, im, err := OpenScratch("memory:", logger)
	if err != nil {
		return false, err
	}
	defer mem.Close()
	docs, ids, err := load.CheckAll(ctx, im, Seeds())
	if err != nil {
		return false, fmt.Errorf("the embedded seeds were refused: %w", err)
	}
	return rep.SeedIfEmpty(ctx, docs, ids)
}

// Validate checks srcs against every rule of the format in a scratch memory store -- after
// the embedded seeds, unless bare, so that ids they define resolve -- and reports refusals
// on errOut. Nothing is stored anywhere.
func Validate(ctx context.Context, srcs []load.Source, bare bool, errOut io.Writer, logger *slog.Logger) (load.Stats, error) {
	st, im, err := OpenScratch("memory:", logger)
	if err != nil {
		return load.Stats{}, err
	}
	defer st.Close()
	if !bare {
		s := Load(ctx, im, Seeds(), errOut, load.Options{})
		if err := s.Interrupted("validate"); err != nil {
			return s, err
		}
		if s.Refused > 0 {
			return s, fmt.Errorf("validate: the embedded seeds are invalid")
		}
	}
	stats := Load(ctx, im, srcs, errOut, load.Options{})
	return stats, stats.Interrupted("validate")
}
