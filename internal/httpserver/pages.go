package httpserver

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// pageFiles serves the files of the pages (their HTML and assets) with their gzip
// encoding to clients that accept it. Each file is compressed once, the first time a
// client asks for it compressed, and kept for the life of the process: never per request.
// The pages' JavaScript and CSS shrink to about a quarter (docs/explorer.md gives the
// sizes); fonts (woff2) are compressed already and are always sent as they are.
//
// Brotli would save a little more, but neither the standard library nor the modules Athar
// already depends on write it, and compressing at build time would tie dist/'s bytes to the
// compressor of the machine that built them (make check-web compares them).
type pageFiles struct {
	fsys  fs.FS
	mu    sync.Mutex
	files map[string]*pageFile
}

// pageFile is one file's bytes and, once made, its gzip encoding.
type pageFile struct {
	raw  []byte
	etag string // of raw: a hash of the content, quoted

	once sync.Once
	gz   []byte // nil when gzip does not make it smaller
}

func newPageFiles(fsys fs.FS) *pageFiles {
	return &pageFiles{fsys: fsys, files: map[string]*pageFile{}}
}

// get returns the file name of the pages, read once.
func (p *pageFiles) get(name string) (*pageFile, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if f, ok := p.files[name]; ok {
		return f, nil
	}
	b, err := fs.ReadFile(p.fsys, name)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	f := &pageFile{raw: b, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
	p.files[name] = f
	return f, nil
}

// gzipped returns the file's gzip encoding, making it the first time; nil when the file
// is not worth compressing.
func (f *pageFile) gzipped(name string) []byte {
	if !compressible(path.Ext(name)) {
		return nil
	}
	f.once.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // the level is valid
		_, _ = zw.Write(f.raw)                                   // writes to a bytes.Buffer do not fail
		_ = zw.Close()
		if buf.Len() < len(f.raw) {
			f.gz = buf.Bytes()
		}
	})
	return f.gz
}

// compressible says whether files of the extension are text worth compressing (woff2
// fonts are compressed already).
func compressible(ext string) bool {
	switch ext {
	case ".html", ".js", ".css", ".ttf", ".svg", ".json":
		return true
	}
	return false
}

// serve writes the file with the given media type: gzip-encoded when the request accepts
// gzip, as it is otherwise. The two encodings have their own ETags, and Vary tells caches
// that the answer depends on Accept-Encoding. http.ServeContent answers conditional
// (If-None-Match: 304) and range requests.
func (p *pageFiles) serve(w http.ResponseWriter, r *http.Request, name, contentType string) error {
	f, err := p.get(name)
	if err != nil {
		return err
	}
	body, etag := f.raw, f.etag
	h := w.Header()
	if compressible(path.Ext(name)) {
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			if gz := f.gzipped(name); gz != nil {
				body = gz
				etag = strings.TrimSuffix(f.etag, `"`) + `-gzip"`
				h.Set("Content-Encoding", "gzip")
			}
		}
	}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	h.Set("ETag", etag)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
	return nil
}

// acceptsGzip reads an Accept-Encoding header: gzip (or *) listed with a q above 0.
func acceptsGzip(header string) bool {
	gzipQ, starQ := -1.0, -1.0
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				}
			}
		}
		switch strings.ToLower(strings.TrimSpace(coding)) {
		case "gzip", "x-gzip":
			gzipQ = q
		case "*":
			starQ = q
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return starQ > 0
}
