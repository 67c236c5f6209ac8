package httpserver_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/athar-hadith/athar/internal/httpserver"
)

// TestPagesCompressed checks, over a real HTTP server, that the pages and their assets are
// sent gzip-encoded to a client that accepts gzip and as they are to one that does not,
// with Vary: Accept-Encoding, an ETag per encoding and 304 for a matching If-None-Match;
// fonts already compressed are never encoded again.
func TestPagesCompressed(t *testing.T) {
	js := []byte(strings.Repeat("export const a = 'the same line, again and again';\n", 400))
	font := bytes.Repeat([]byte{0x77, 0x4f, 0x46, 0x32}, 100)
	pages := fstest.MapFS{
		"index.html":          {Data: []byte("<!doctype html><title>x</title>" + strings.Repeat("<p>explorer</p>", 50))},
		"graphiql.html":       {Data: []byte("<!doctype html>")},
		"assets/index-1.js":   {Data: js},
		"assets/font-1.woff2": {Data: font},
	}
	srv := httptest.NewServer(httpserver.New(httpserver.Config{Pages: pages}))
	defer srv.Close()
	// A client that decodes nothing by itself, so that the test sees the encoding sent.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(path, acceptEncoding, ifNoneMatch string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if acceptEncoding != "" {
			req.Header.Set("Accept-Encoding", acceptEncoding)
		}
		if ifNoneMatch != "" {
			req.Header.Set("If-None-Match", ifNoneMatch)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}
	for _, c := range []struct {
		path string
		want []byte
	}{
		{"/", pages["index.html"].Data},
		{"/assets/index-1.js", js},
	} {
		plain, body := get(c.path, "", "")
		if plain.StatusCode != http.StatusOK || plain.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, c.want) {
			t.Errorf("GET %s without Accept-Encoding: %d, Content-Encoding %q, %d bytes; want 200, identity, %d bytes",
				c.path, plain.StatusCode, plain.Header.Get("Content-Encoding"), len(body), len(c.want))
		}
		refused, _ := get(c.path, "gzip;q=0, identity", "")
		if refused.Header.Get("Content-Encoding") != "" {
			t.Errorf("GET %s with gzip;q=0: Content-Encoding %q, want identity", c.path, refused.Header.Get("Content-Encoding"))
		}
		gz, zbody := get(c.path, "br, gzip, deflate", "")
		if gz.StatusCode != http.StatusOK || gz.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("GET %s accepting gzip: %d, Content-Encoding %q, want gzip", c.path, gz.StatusCode, gz.Header.Get("Content-Encoding"))
		}
		zr, err := gzip.NewReader(bytes.NewReader(zbody))
		if err != nil {
			t.Fatal(err)
		}
		unzipped, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(unzipped, c.want) {
			t.Errorf("GET %s gzip: the body does not decode to the file (%v)", c.path, err)
		}
		if len(zbody) >= len(c.want) {
			t.Errorf("GET %s gzip: %d bytes, no smaller than the file's %d", c.path, len(zbody), len(c.want))
		}
		for _, r := range []*http.Response{plain, gz} {
			if r.Header.Get("Vary") != "Accept-Encoding" {
				t.Errorf("GET %s: Vary %q, want Accept-Encoding", c.path, r.Header.Get("Vary"))
			}
		}
		if plain.Header.Get("ETag") == "" || plain.Header.Get("ETag") == gz.Header.Get("ETag") {
			t.Errorf("GET %s: ETags %q (identity) and %q (gzip), want two different ones", c.path, plain.Header.Get("ETag"), gz.Header.Get("ETag"))
		}
		if r, _ := get(c.path, "gzip", gz.Header.Get("ETag")); r.StatusCode != http.StatusNotModified {
			t.Errorf("GET %s with the gzip ETag: %d, want 304", c.path, r.StatusCode)
		}
		if r, _ := get(c.path, "gzip", plain.Header.Get("ETag")); r.StatusCode != http.StatusOK {
			t.Errorf("GET %s accepting gzip with the identity ETag: %d, want 200 (another representation)", c.path, r.StatusCode)
		}
	}
	f, body := get("/assets/font-1.woff2", "gzip", "")
	if f.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, font) || f.Header.Get("Content-Type") != "font/woff2" {
		t.Errorf("GET a woff2 font accepting gzip: Content-Encoding %q, Content-Type %q, want it as it is", f.Header.Get("Content-Encoding"), f.Header.Get("Content-Type"))
	}
}
