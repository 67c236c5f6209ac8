//go:build bench

package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/ingest"
)

// RawLoadChildEnv, when set in the environment of `athar bench`, makes it raw Cayley's
// loader (RawLoadChild) instead of a benchmark; its value is the loader's JSON rawLoadSpec.
const RawLoadChildEnv = "ATHAR_BENCH_RAW_LOAD"

// rawLoadSpec tells the raw loader what to load where.
type rawLoadSpec struct {
	Dir    string // a new raw store
	NQuads string // an 'athar export'
	Batch  int    // quads per transaction
}

// RawLoadChild is raw Cayley's loader: it streams the N-Quads file of the spec into a raw
// store, ApplyDeltas in transactions of Batch quads, and writes "quads N" on out.
func RawLoadChild(specJSON string, out io.Writer) error {
	var spec rawLoadSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		return fmt.Errorf("%s: %w", RawLoadChildEnv, err)
	}
	in, err := os.Open(spec.NQuads)
	if err != nil {
		return err
	}
	defer in.Close()
	raw, err := cayleystore.OpenRaw(spec.Dir)
	if err != nil {
		return err
	}
	n, err := raw.LoadNQuads(in, spec.Batch)
	if cerr := raw.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "quads %d\n", n)
	return err
}

// rawLoad has raw Cayley load the N-Quads file nq into a new store in dir, in a process of
// its own timed from its start to its exit as `athar load` is, in transactions as large as
// Athar's (ingest.TxQuads). It returns the quads loaded and the process's wall and CPU
// (user + system) time. Loaded in the bench's own process, as until 2026-12-02, the load
// paid for what the process had done before it (the garbage of timing the server, or of
// reading the athar store), and its time moved with the order of the steps.
func rawLoad(ctx context.Context, binary, dir, nq string) (quads int, wall, cpu time.Duration, err error) {
	spec, err := json.Marshal(rawLoadSpec{Dir: dir, NQuads: nq, Batch: ingest.TxQuads})
	if err != nil {
		return 0, 0, 0, err
	}
	cmd := exec.CommandContext(ctx, binary, "bench")
	cmd.Env = append(os.Environ(), RawLoadChildEnv+"="+string(spec))
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, 0, fmt.Errorf("raw Cayley load: %v\n%s", err, tail(stderr.String(), 2000))
	}
	wall = time.Since(start)
	cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if _, err := fmt.Sscanf(out.String(), "quads %d", &quads); err != nil {
		return 0, 0, 0, fmt.Errorf("raw Cayley load: unexpected output %q", out.String())
	}
	return quads, wall, cpu, nil
}
