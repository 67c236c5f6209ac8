package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/ingest/load"
	"github.com/athar-hadith/athar/schema"
	"github.com/athar-hadith/athar/seeds"
)

// openGraph opens the store named by spec with a local writer over it, for what must
// never reach a shared log (validate, and checking the seeds before logging them).
func openGraph(spec string, logger *slog.Logger) (*cayleystore.Store, *ingest.Local, error) {
	st, err := cayleystore.Open(spec, logger)
	if err != nil {
		return nil, nil, err
	}
	return st, ingest.NewLocal(st, schema.Vocabulary()), nil
}

func seedSources() []load.Source {
	var out []load.Source
	for _, f := range seeds.Files() {
		out = append(out, load.Source{Name: f.Name, Data: f.Data})
	}
	return out
}

// loadSources runs the one load loop (load.Run) through w, reporting refusals on errOut with a
// progress bar when errOut is a terminal.
func loadSources(ctx context.Context, w ingest.Writer, srcs []load.Source, errOut io.Writer, opts load.Options) load.Stats {
	opts.Report, opts.Progress = errOut, progressBar(errOut)
	return load.Run(ctx, w, srcs, opts)
}

// progressBar returns a progress display on out for loads of 50 documents or more, or nil
// when out is not a terminal.
func progressBar(out io.Writer) func(done, total int) {
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
				progressbar.OptionSetDescription("importing"), progressbar.OptionShowCount(),
				progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
		}
		_ = bar.Set(done)
		if done == total {
			_ = bar.Finish()
		}
	}
}
