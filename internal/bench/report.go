//go:build bench

package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/athar-hadith/athar/internal/ingest"
)

// Meta describes the run for the report.
type Meta struct {
	Command string
	Machine string // e.g. "2 cores, 24 GiB, linux/amd64, go1.26.8"
	Date    time.Time
	Load    string // /proc/loadavg's three averages when the run started
}

// WriteMarkdown writes the results as the measured part of docs/BENCHMARKS.md.
func WriteMarkdown(w io.Writer, m Meta, results []Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Command: `%s`  \nMachine: %s  \nDate: %s\n\n", m.Command, m.Machine, m.Date.Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "### Import\n\n| narrations | quads | athar load | narrations/s | quads/s | raw Cayley (the export's N-Quads, ApplyDeltas, %dk/tx as Athar) | raw quads/s | ratio athar/raw | CPU athar / raw (user+sys) | CPU ratio |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n", ingest.TxQuads/1000)
	var reused []string
	for _, r := range results {
		if r.Reused {
			reused = append(reused, strconv.Itoa(r.Narrations))
			continue
		}
		cpu, cpuRatio := "n/a", "n/a"
		if r.RawLoadCPU > 0 {
			cpu = fmt.Sprintf("%s / %s", r.AtharLoadCPU.Round(100*time.Millisecond), r.RawLoadCPU.Round(100*time.Millisecond))
			cpuRatio = fmt.Sprintf("%.2f", r.AtharLoadCPU.Seconds()/r.RawLoadCPU.Seconds())
		}
		fmt.Fprintf(&b, "| %d | %d | %s | %.0f | %.0f | %s | %.0f | %.2f | %s | %s |\n", r.Narrations, r.Quads,
			r.AtharLoad.Round(time.Millisecond), float64(r.Narrations)/r.AtharLoad.Seconds(), float64(r.Quads)/r.AtharLoad.Seconds(),
			r.RawLoad.Round(time.Millisecond), float64(r.Quads)/r.RawLoad.Seconds(), r.AtharLoad.Seconds()/r.RawLoad.Seconds(), cpu, cpuRatio)
	}
	if len(reused) > 0 {
		fmt.Fprintf(&b, "\nNot measured at %s narrations: this run reused the stores an earlier run loaded (--reuse).\n", strings.Join(reused, ", "))
	}
	writeRounds(&b, results)
	b.WriteString("\n### Queries (Athar: HTTP GraphQL to `athar serve`, sequential; raw: Cayley lookups in process)\n\n| narrations | query | athar p50 | athar p99 | raw p50 | raw p99 | ratio p50 | runs (athar/raw) |\n| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range results {
		for _, q := range r.Queries {
			rawP50, rawP99, ratio, runs := "n/a", "n/a", "n/a", fmt.Sprint(q.Athar.Runs)
			if q.Raw.P50 > 0 {
				rawP50, rawP99 = ms(q.Raw.P50), ms(q.Raw.P99)
				ratio = fmt.Sprintf("%.1f", float64(q.Athar.P50)/float64(q.Raw.P50))
				runs += fmt.Sprintf("/%d", q.Raw.Runs)
			}
			fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s |\n", r.Narrations, q.Kind, ms(q.Athar.P50), ms(q.Athar.P99), rawP50, rawP99, ratio, runs)
		}
	}
	b.WriteString("\n### Resources\n\n| narrations | server peak RSS | of which not file-backed, at the end | store on disk |\n| ---: | ---: | ---: | ---: |\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %d | %.0f MiB | %.0f MiB | %.0f MiB |\n", r.Narrations, float64(r.PeakRSS)/(1<<20), float64(r.AnonRSS)/(1<<20), float64(r.DiskBytes)/(1<<20))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// The markers of the sections of docs/BENCHMARKS.md that athar bench rewrites: the main
// comparison, and the comparison of embedded backends (--backends).
const (
	BenchBegin    = "<!-- bench:begin (written by athar bench; do not edit by hand) -->"
	BenchEnd      = "<!-- bench:end -->"
	BackendsBegin = "<!-- backends:begin (written by athar bench --backends; do not edit by hand) -->"
	BackendsEnd   = "<!-- backends:end -->"
	CorpusBegin   = "<!-- corpus:begin (written by athar bench --corpus-store; do not edit by hand) -->"
	CorpusEnd     = "<!-- corpus:end -->"
	// CorpusImportBegin and CorpusImportEnd hold athar bench --corpus-import's table.
	CorpusImportBegin = "<!-- corpus-import:begin (written by athar bench --corpus-import; do not edit by hand) -->"
	CorpusImportEnd   = "<!-- corpus-import:end -->"
)

// ReplaceSection replaces what lies between the markers begin and end in the Markdown file
// at path with tables, so the prose around the measured section stays.
func ReplaceSection(path, begin, end string, tables []byte) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	i, j := bytes.Index(doc, []byte(begin)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		return fmt.Errorf("bench: %s has no %q ... %q section", path, begin, end)
	}
	var b bytes.Buffer
	b.Write(doc[:i+len(begin)])
	b.WriteString("\n")
	b.Write(tables)
	b.Write(doc[j:])
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// Machine describes this machine for Meta: cores, memory, platform and Go version.
func Machine() string {
	return fmt.Sprintf("%d cores, %s, %s/%s, %s", runtime.NumCPU(), memTotal(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

// memTotal reads the machine's memory from /proc/meminfo.
func memTotal() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "memory unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return fmt.Sprintf("%.0f GiB", kb/(1<<20))
		}
	}
	return "memory unknown"
}

// writeRounds writes the import's pairs of loads, where a result has more than one: each
// pair's times and ratio, and the median ratio.
func writeRounds(b *strings.Builder, results []Result) {
	header := false
	for _, r := range results {
		if len(r.Rounds) == 0 {
			continue
		}
		if !header {
			b.WriteString("\nThe import in pairs of loads into new stores (the first pair is the one above; raw Cayley's load first in every other pair):\n\n| narrations | pair | athar load | raw Cayley | ratio | CPU athar / raw |\n| ---: | ---: | ---: | ---: | ---: | ---: |\n")
			header = true
		}
		pairs := r.Pairs()
		ratios := make([]float64, len(pairs))
		for i, p := range pairs {
			ratios[i] = p.Ratio()
			fmt.Fprintf(b, "| %d | %d | %s | %s | %.2f | %s / %s |\n", r.Narrations, i+1, p.Athar.Round(time.Millisecond), p.Raw.Round(time.Millisecond),
				p.Ratio(), p.AtharCPU.Round(100*time.Millisecond), p.RawCPU.Round(100*time.Millisecond))
		}
		fmt.Fprintf(b, "| %d | median | | | **%.2f** | |\n", r.Narrations, median(ratios))
	}
}

// median is the middle of xs (the mean of the two middle ones for an even count).
func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else if n > 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return 0
}
