package cayleystore

import (
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
)

// Every kind of value comes back from the node cache as it went in: the same type and the
// same value.
func TestNodeCacheRoundTrip(t *testing.T) {
	c := newNodeCache()
	defer c.Reset()
	vals := []quad.Value{
		quad.IRI("athar:person/umar"),
		quad.IRI(""),
		quad.String("قال عمر بن الخطاب"),
		quad.String(""),
		quad.BNode("b1"),
		quad.TypedString{Value: "8:67", Type: "athar:vocab#verse"},
		quad.TypedString{Value: "", Type: "xsd:string"},
		quad.LangString{Value: "عمر", Lang: "ar"},
		quad.LangString{Value: "'Umar", Lang: "en-Latn"},
		quad.Int(0),
		quad.Int(-42),
		quad.Int(1 << 40),
		quad.Float(2.5),
		quad.Bool(true),
		quad.Time(time.Date(2026, 12, 2, 16, 0, 0, 5, time.UTC)),
	}
	for i, v := range vals {
		c.Add(uint64(i+1), v)
	}
	for i, want := range vals {
		got, ok := c.Get(uint64(i + 1))
		if !ok {
			t.Errorf("node %d (%#v): not in the cache", i+1, want)
			continue
		}
		if got != want {
			t.Errorf("node %d: got %#v, want %#v", i+1, got, want)
		}
	}
	if v, ok := c.Get(uint64(len(vals) + 1)); ok {
		t.Errorf("a node never added: got %#v", v)
	}
}

// A value too large for one of fastcache's chunks is not kept (the store reads it again),
// and a cache that keeps nothing -- the memory store's -- answers every Get with a miss.
func TestNodeCacheMisses(t *testing.T) {
	c := newNodeCache()
	defer c.Reset()
	big := quad.String(strings.Repeat("ح", 40000)) // 80,000 bytes
	c.Add(1, big)
	if v, ok := c.Get(1); ok {
		t.Errorf("a value of %d bytes: got %d bytes, want a miss", len(big), len(v.(quad.String)))
	}
	var none *nodeCache
	none.Add(1, quad.IRI("x"))
	if _, ok := none.Get(1); ok {
		t.Error("the nil cache returned a value")
	}
	none.Reset()
}

// An encoding the cache did not write is refused, not decoded into a wrong value.
func TestDecodeValueRefusesBadEncodings(t *testing.T) {
	for _, b := range []string{"", "X", "T\x05ab", "L\xff", "N", "N\x02\x00", "P\x07"} {
		if v, err := decodeValue([]byte(b)); err == nil {
			t.Errorf("decodeValue(%q) = %#v, want an error", b, v)
		}
	}
}
