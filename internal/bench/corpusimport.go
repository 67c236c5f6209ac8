//go:build bench

package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/athar-hadith/athar/internal/ingest"
)

// CorpusImportConfig says what RunCorpusImport imports and where.
type CorpusImportConfig struct {
	Files   []string // hadith-api edition files (athar corpus import's arguments)
	WorkDir string   // scratch: the athar store, its export and the raw store
	Binary  string   // the athar binary
	Log     io.Writer
}

// CorpusImportResult is a run of RunCorpusImport: the whole of 'athar corpus import' into
// an empty store (process start to exit) against raw Cayley loading that store's exported
// N-Quads with ApplyDeltas in transactions as large as the import's (ingest.TxQuads).
type CorpusImportResult struct {
	Files             int
	Quads             int
	Import, ImportCPU time.Duration
	Raw, RawCPU       time.Duration
	AtharDisk         int64 // the athar store's directory (Cayley, the read model, the text index)
	RawDisk           int64
	ExportBytes       int64
}

// RunCorpusImport imports cfg.Files with the binary into a new store, exports it as
// N-Quads, and loads the export into a new raw Cayley store, timing both loads.
func RunCorpusImport(ctx context.Context, cfg CorpusImportConfig) (CorpusImportResult, error) {
	res := CorpusImportResult{Files: len(cfg.Files)}
	if len(cfg.Files) == 0 {
		return res, fmt.Errorf("no edition files to import")
	}
	base := filepath.Join(cfg.WorkDir, "corpus-import")
	if err := os.RemoveAll(base); err != nil {
		return res, err
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return res, err
	}
	store := filepath.Join(base, "athar")
	imp := exec.CommandContext(ctx, cfg.Binary, append([]string{"corpus", "import", "--store", "bbolt:" + store}, cfg.Files...)...)
	var out bytes.Buffer
	imp.Stdout, imp.Stderr = &out, &out
	start := time.Now()
	if err := imp.Run(); err != nil {
		return res, fmt.Errorf("athar corpus import: %v\n%s", err, tail(out.String(), 2000))
	}
	res.Import = time.Since(start)
	res.ImportCPU = imp.ProcessState.UserTime() + imp.ProcessState.SystemTime()
	res.AtharDisk = dirSize(store)
	logf(cfg.Log, "athar corpus import of %d files: %s (CPU %s)", len(cfg.Files), res.Import.Round(time.Millisecond), res.ImportCPU.Round(time.Millisecond))

	nq := filepath.Join(base, "export.nq")
	size, err := exportNQuads(ctx, cfg.Binary, store, nq)
	if err != nil {
		return res, err
	}
	res.ExportBytes = size

	if res.Quads, res.Raw, res.RawCPU, err = rawLoad(ctx, cfg.Binary, filepath.Join(base, "raw"), nq); err != nil {
		return res, err
	}
	res.RawDisk = dirSize(filepath.Join(base, "raw"))
	logf(cfg.Log, "raw cayley load of the export's %d quads: %s (CPU %s)", res.Quads, res.Raw.Round(time.Millisecond), res.RawCPU.Round(time.Millisecond))
	return res, nil
}

// WriteCorpusImportMarkdown writes a run of RunCorpusImport as a table.
func WriteCorpusImportMarkdown(w io.Writer, m Meta, r CorpusImportResult) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Command: `%s`  \nMachine: %s  \nDate: %s  \nLoad average at the start: %s\n\n", m.Command, m.Machine, m.Date.Format("2006-01-02 15:04 MST"), m.Load)
	fmt.Fprintf(&b, "| files | quads | athar corpus import | CPU (user+sys) | raw Cayley, the export's N-Quads (ApplyDeltas, %dk/tx as Athar) | CPU | ratio | CPU ratio | on disk, athar / raw |\n", ingest.TxQuads/1000)
	b.WriteString("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %s | %.2f | %.2f | %.0f / %.0f MiB |\n",
		r.Files, r.Quads, r.Import.Round(100*time.Millisecond), r.ImportCPU.Round(100*time.Millisecond),
		r.Raw.Round(100*time.Millisecond), r.RawCPU.Round(100*time.Millisecond),
		r.Import.Seconds()/r.Raw.Seconds(), r.ImportCPU.Seconds()/r.RawCPU.Seconds(),
		float64(r.AtharDisk)/(1<<20), float64(r.RawDisk)/(1<<20))
	fmt.Fprintf(&b, "\nThe export: %.0f MiB of N-Quads; raw Cayley's time includes parsing them.\n", float64(r.ExportBytes)/(1<<20))
	_, err := io.WriteString(w, b.String())
	return err
}

// exportNQuads writes the whole store in dir as N-Quads to path with 'athar export' and
// returns the file's size.
func exportNQuads(ctx context.Context, binary, dir, path string) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	exp := exec.CommandContext(ctx, binary, "export", "--store", "bbolt:"+dir, "--format", "nquads")
	exp.Stdout = f
	var stderr bytes.Buffer
	exp.Stderr = &stderr
	err = exp.Run()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("athar export: %v\n%s", err, tail(stderr.String(), 2000))
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
