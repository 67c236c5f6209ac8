package httpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/httpserver"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/schema"
	"github.com/athar-hadith/athar/seeds"
)

// seeded returns a memory store holding every seed narration (about 730 KB of N-Quads).
func seeded(t *testing.T) *cayleystore.Store {
	t.Helper()
	st, err := cayleystore.Open("memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var docs []*narration.Document
	for _, f := range seeds.Files() {
		d, err := narration.Parse(f.Name, f.Data)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		docs = append(docs, d)
	}
	im := ingest.NewLocal(st, schema.Vocabulary())
	for _, d := range narration.Order(docs) {
		if _, err := im.Import(context.Background(), d); err != nil {
			t.Fatalf("%s: %v", d.Source, err)
		}
	}
	return st
}

// smallBuffers shrinks each accepted connection's send buffer, so that the server's writes
// wait for the client to read instead of filling megabytes of kernel buffers.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(16 << 10)
	}
	return c, err
}

// serve runs the real server (NewServer) with the given write timeout, on port 0.
func serve(t *testing.T, cfg httpserver.Config, writeTimeout time.Duration) string {
	t.Helper()
	srv := httpserver.NewServer("", httpserver.New(cfg))
	srv.WriteTimeout = writeTimeout
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(smallBuffers{ln}) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

// slowClient reads with a small receive buffer, so that the server sees how fast it reads.
func slowClient() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(16 << 10)
		}
		return c, err
	}}}
}

// readSlowly reads chunk bytes, then pauses, until the end; after the first chunk it
// pauses stallAfterFirst instead, when given.
func readSlowly(r io.Reader, chunk int, pause, stallAfterFirst time.Duration) ([]byte, error) {
	var out bytes.Buffer
	buf := make([]byte, chunk)
	for i := 0; ; i++ {
		n, err := io.ReadFull(r, buf)
		out.Write(buf[:n])
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) && n > 0 {
			// io.ReadFull's short last read: read on to see how the body really ends.
			if _, err := r.Read(buf[:1]); !errors.Is(err, io.EOF) {
				return out.Bytes(), err
			}
			return out.Bytes(), nil
		}
		if err != nil {
			return out.Bytes(), err
		}
		if i == 0 && stallAfterFirst > 0 {
			time.Sleep(stallAfterFirst)
		} else {
			time.Sleep(pause)
		}
	}
}

func get(t *testing.T, url string) *http.Response {
	t.Helper()
	resp, err := slowClient().Get(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	return resp
}

// TestExportStreams is issue 12's cut backup: a client reading 1.5 MB/s got 100 of 128 MB
// of /export/nquads, with 200, because the server's WriteTimeout cut the stream. Here the
// write timeout is 200 ms and the client takes over a second.
func TestExportStreams(t *testing.T) {
	st := seeded(t)
	cfg := httpserver.Config{Store: st, Vocab: schema.Vocabulary()}

	t.Run("a slow steady client gets the whole export past the write timeout", func(t *testing.T) {
		const writeTimeout = 200 * time.Millisecond
		base := serve(t, cfg, writeTimeout)
		for _, format := range []string{"nquads", "jsonld"} {
			start := time.Now()
			body, err := readSlowly(get(t, base+"/export/"+format).Body, 16<<10, 10*time.Millisecond, 0)
			took := time.Since(start)
			if err != nil {
				t.Fatalf("%s: %v after %d bytes in %v", format, err, len(body), took)
			}
			if took < 3*writeTimeout {
				t.Fatalf("%s: read in %v, not slowly enough to outlast the %v write timeout", format, took, writeTimeout)
			}
			switch format {
			case "nquads":
				qs, verified, err := cayleystore.ReadNQuadsVerified(bytes.NewReader(body))
				if err != nil || !verified {
					t.Fatalf("%d bytes: verified %v, %v", len(body), verified, err)
				}
				t.Logf("nquads: %d bytes, %d quads, trailer verified, in %v (write timeout %v)", len(body), len(qs), took, writeTimeout)
			default:
				if !json.Valid(body) {
					t.Fatalf("%s: %d bytes of invalid JSON", format, len(body))
				}
				t.Logf("%s: %d bytes of valid JSON in %v", format, len(body), took)
			}
		}
	})

	t.Run("a stalled client is dropped and sees an error, not a clean end", func(t *testing.T) {
		stalled := cfg
		stalled.ExportStallTimeout = 300 * time.Millisecond
		base := serve(t, stalled, time.Minute)
		for _, format := range []string{"nquads", "jsonld"} {
			body, err := readSlowly(get(t, base+"/export/"+format).Body, 16<<10, 0, time.Second)
			if err == nil {
				t.Fatalf("%s: the body ended cleanly after %d bytes", format, len(body))
			}
			if bytes.Contains(body, []byte(cayleystore.TrailerPrefix)) {
				t.Fatalf("%s: a cut export carries the trailer", format)
			}
			t.Logf("%s: stalled 1s after 16 KiB: %v after %d bytes", format, err, len(body))
		}
	})

	t.Run("an export that outlasts its bound is cut, detectably", func(t *testing.T) {
		bounded := cfg
		bounded.ExportMaxDuration = 300 * time.Millisecond
		base := serve(t, bounded, time.Minute)
		start := time.Now()
		resp, err := slowClient().Get(base + "/export/nquads")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			// On a loaded machine the bound can pass while the export is still selecting,
			// before its first byte: then it must be refused as retryable, saying why.
			msg, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusServiceUnavailable || !bytes.Contains(msg, []byte("ExportMaxDuration")) || resp.Header.Get("Retry-After") == "" {
				t.Fatalf("GET /export/nquads: %s %s", resp.Status, msg)
			}
			t.Logf("the bound passed before the first byte: %s %s", resp.Status, msg)
			return
		}
		body, err := readSlowly(resp.Body, 16<<10, 10*time.Millisecond, 0)
		if err == nil {
			t.Fatalf("the body ended cleanly after %d bytes in %v", len(body), time.Since(start))
		}
		if _, verified, _ := cayleystore.ReadNQuadsVerified(bytes.NewReader(body)); verified {
			t.Fatal("a cut export verifies")
		}
		t.Logf("cut at the 300 ms bound: %v after %d bytes in %v", err, len(body), time.Since(start))
	})

	t.Run("an export whose bound passes before its first byte is refused, retryably", func(t *testing.T) {
		expired := cfg
		expired.ExportMaxDuration = time.Nanosecond
		base := serve(t, expired, time.Minute)
		resp, err := http.Get(base + "/export/nquads")
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
			!bytes.Contains(msg, []byte("ExportMaxDuration")) || !bytes.Contains(msg, []byte("UNAVAILABLE")) {
			t.Fatalf("GET /export/nquads past its bound: %s (Retry-After %q) %s", resp.Status, resp.Header.Get("Retry-After"), msg)
		}
	})

	t.Run("exports beyond the concurrency bound get 503", func(t *testing.T) {
		one := cfg
		one.MaxConcurrentExports = 1
		base := serve(t, one, time.Minute)
		first := get(t, base+"/export/nquads") // held open, unread
		resp, err := http.Get(base + "/export/gexf")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("a second export: %s, Retry-After %q; want 503 with Retry-After", resp.Status, resp.Header.Get("Retry-After"))
		}
		first.Body.Close() // the server's next write fails, and the export ends
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			resp, err := http.Get(base + "/export/gexf")
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after the first export was dropped: %s", resp.Status)
			}
		}
	})
}

// TestExportParameters is issue 18's item 9: ?narration= was silently ignored (the whole
// graph came back). Every format takes it; an unknown parameter and a bad depth are a 400
// with code INVALID_ARGUMENT naming what is wrong.
func TestExportParameters(t *testing.T) {
	base := serve(t, httpserver.Config{Store: seeded(t), Vocab: schema.Vocabulary()}, time.Minute)
	fetch := func(t *testing.T, path string) (int, []byte) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}

	t.Run("narration selects what one narration asserts, in every format", func(t *testing.T) {
		for _, format := range []string{"cytoscape", "graphml", "gexf", "gexf12", "jsonld", "nquads"} {
			_, whole := fetch(t, "/export/"+format)
			status, body := fetch(t, "/export/"+format+"?narration=narration:ahmad-208")
			if status != http.StatusOK {
				t.Fatalf("%s: %d %s", format, status, body)
			}
			if !bytes.Contains(body, []byte("ahmad-208")) || len(body) >= len(whole) {
				t.Errorf("%s: %d bytes, the whole graph %d: not the narration's own export", format, len(body), len(whole))
			}
			// In RDF every quad is the narration's own (edges in the graph formats list
			// every narration attesting them, the others too).
			if (format == "jsonld" || format == "nquads") && bytes.Contains(body, []byte("bukhari-3953")) {
				t.Errorf("%s: another narration's quads in the narration's export", format)
			}
		}
		if status, body := fetch(t, "/export/gexf?narration=narration:nosuch"); status != http.StatusNotFound {
			t.Errorf("an unknown narration: %d %s", status, body)
		}
	})

	for _, tc := range []struct{ name, query, says string }{
		{"unknown parameter", "?root=event:badr&narattion=narration:ahmad-208", "narattion"},
		{"depth not a number", "?root=event:badr&depth=two", `depth "two" is not a number`},
		{"unknown predicate", "?predicates=advizes", "advizes"},
		{"narration with root", "?narration=narration:ahmad-208&root=event:badr", "narration goes alone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := fetch(t, "/export/graphml"+tc.query)
			var e struct{ Error, Code string }
			if err := json.Unmarshal(body, &e); err != nil {
				t.Fatalf("%d, not a JSON error: %s", status, body)
			}
			if status != http.StatusBadRequest || e.Code != "INVALID_ARGUMENT" || !strings.Contains(e.Error, tc.says) {
				t.Errorf("%d %s; want 400 INVALID_ARGUMENT saying %q", status, body, tc.says)
			}
		})
	}
}
