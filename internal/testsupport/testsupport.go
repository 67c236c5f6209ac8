// Package testsupport holds the helpers that tests of several packages share: a buffer
// safe for concurrent writers, a store's quads as text, a server's address when it listens
// on port 0, and a PostgreSQL database of the test's own. Only tests import it.
package testsupport

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/athar-hadith/athar/internal/athar"
)

// Buffer is a bytes.Buffer safe for concurrent use: a server's logs, written by its
// goroutines (or a child process's output copier) while the test reads them.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Quads returns every quad of st as its key, one a line, in the store's order (sorted): two
// stores holding the same graph give the same text.
func Quads(t testing.TB, st athar.Store) string {
	t.Helper()
	var b strings.Builder
	if err := st.Quads(context.Background(), func(q athar.Quad) error {
		b.WriteString(q.Key())
		b.WriteByte('\n')
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Listening waits until a server told to listen on port 0 (e.g. `athar serve --addr
// 127.0.0.1:0`) logs the address it got, as `athar serve` does in its JSON log line
// {"msg":"listening","addr":...}, and returns that address. Asking the kernel for a port
// and letting the server bind it, rather than picking a free port first, leaves no moment
// in which another process may take it. It fails the test if exited is closed first, or
// after two minutes (a server loads its seeds, or builds its index, before it listens).
func Listening(t testing.TB, logs *Buffer, exited <-chan struct{}) string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if addr := listenAddr(logs.String()); addr != "" {
			return addr
		}
		select {
		case <-exited:
			t.Fatalf("the server exited before it listened:\n%s", logs.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not say where it listens:\n%s", logs.String())
		}
	}
}

// listenAddr returns the address of the first "listening" line of logs, or "".
func listenAddr(logs string) string {
	sc := bufio.NewScanner(strings.NewReader(logs))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, []byte(`"listening"`)) {
			continue
		}
		var l struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		if json.Unmarshal(line, &l) == nil && l.Msg == "listening" && l.Addr != "" {
			return l.Addr
		}
	}
	return ""
}

// Database creates a database of the test's own on the PostgreSQL server that
// ATHAR_TEST_DATABASE names, dropped when the test ends, and returns its URL. Without
// ATHAR_TEST_DATABASE the test skips, except under CI=true, where it fails: .ci/run starts a
// server with .ci/postgres.sh and exports it.
func Database(t testing.TB) string {
	t.Helper()
	admin := os.Getenv("ATHAR_TEST_DATABASE")
	if admin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("ATHAR_TEST_DATABASE is not set: .ci/run starts PostgreSQL with .ci/postgres.sh and exports it")
		}
		t.Skip("ATHAR_TEST_DATABASE is not set: run eval \"$(.ci/postgres.sh start)\" to test against PostgreSQL")
	}
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("ATHAR_TEST_DATABASE: %v", err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "athar_test_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connect to ATHAR_TEST_DATABASE: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Logf("drop database %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}

// FirstDiff shows the first line where got departs from want ("" when they are equal).
func FirstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		w, g := "(none)", "(none)"
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  want: %s\n  got:  %s", i+1, w, g)
		}
	}
	return ""
}

// Golden compares got with the file at path, naming the first line that differs, or
// with update writes got there (making its directory).
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it if the change is meant)\n%s", path, FirstDiff(string(want), string(got)))
	}
}
