package main

import (
	"runtime"
	"testing"
	"time"
)

// The held stacks are what sizes a new goroutine's stack: with them, after a collection,
// the runtime starts goroutines at 16 KiB or more; once they are released it goes back
// below that.
func TestHeldStacksSetTheStartingSize(t *testing.T) {
	if startingStackSize() == 0 {
		t.Skip("the runtime does not report " + startingStackMetric)
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
