package main

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// The held stacks are what sizes a new goroutine's stack: with them, after a collection,
// the runtime starts goroutines at 16 KiB or more; once they are released it goes back
// below that.
//
// The starting size is the average of every goroutine's stack the collector scanned, so
// the check runs in a process of its own (this test binary again, running this test
// only), as a server is: in the package's process, goroutines other tests leave winding
// down (a closed server's connections, a database pool's workers) pulled the average
// under 16 KiB once in CI.
func TestHeldStacksSetTheStartingSize(t *testing.T) {
	if startingStackSize() == 0 {
		t.Skip("the runtime does not report " + startingStackMetric)
	}
	if os.Getenv("ATHAR_TEST_STACKS_ALONE") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHeldStacksSetTheStartingSize$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "ATHAR_TEST_STACKS_ALONE=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("in a process of its own: %v\n%s", err, out)
		}
		return
	}
	const want = 16 << 10
	release := holdStacks(serveStackGoroutines, serveStackKiB)
	runtime.GC()
	runtime.GC()
	if got := startingStackSize(); got < want {
		release()
		t.Fatalf("with %d stacks of %d KiB held, a goroutine starts with %d bytes of stack; want at least %d",
			serveStackGoroutines, serveStackKiB, got, want)
	}
	release()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		got := startingStackSize()
		if got < want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("released, a goroutine still starts with %d bytes of stack; want under %d", got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
