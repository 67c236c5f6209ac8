package search

import "unsafe"

// The index keeps every string it holds -- the ids, the names as given, their normal forms
// and skeletons -- in an arena of large byte chunks, and its arrays refer to them by
// position (a str), so that they hold no pointers. The garbage collector marks every live
// object on each of its cycles: the index of the 100,000 generated narrations' entities was
// about a million small strings and slices (nearly all of a server's live objects), and
// the marking of them, 12-16 ms a cycle on two cores, was what the requests a cycle
// overlapped waited for -- the p99 of every query kind (docs/BENCHMARKS.md). In the arena
// they are a few dozen chunks the collector need not scan.

// str is a string in a strs: chunk, offset and length.
type str struct{ chunk, off, n uint32 }

// strs is an append-only arena of strings. Bytes once written never change, so a string
// get returns stays valid: it keeps its chunk alive, even once the index has compacted
// into a new arena.
type strs struct {
	chunks [][]byte
	cur    int // the chunk being filled; -1 (or no chunks) before the first
	bytes  int // written so far
}

// strChunk is the size of the arena's chunks; a string over a quarter of it gets a chunk
// of its own.
const strChunk = 1 << 20

// add copies s into the arena.
func (a *strs) add(s string) str {
	n := len(s)
	if n == 0 {
		return str{}
	}
	a.bytes += n
	if n > strChunk/4 {
		a.chunks = append(a.chunks, []byte(s))
		return str{chunk: uint32(len(a.chunks) - 1), n: uint32(n)}
	}
	if len(a.chunks) == 0 || cap(a.chunks[a.cur])-len(a.chunks[a.cur]) < n {
		a.chunks = append(a.chunks, make([]byte, 0, strChunk))
		a.cur = len(a.chunks) - 1
	}
	c := a.chunks[a.cur]
	off := len(c)
	a.chunks[a.cur] = append(c, s...)
	return str{chunk: uint32(a.cur), off: uint32(off), n: uint32(n)}
}

// get returns the string r, without copying it. What the index hands out it clones, so
// that a caller keeping a hit's id does not keep a megabyte chunk with it.
func (a *strs) get(r str) string {
	if r.n == 0 {
		return ""
	}
	return unsafe.String(&a.chunks[r.chunk][r.off], int(r.n))
}
