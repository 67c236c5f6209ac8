package isnad

import (
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/search"
)

var collections = []string{"abudawud", "bukhari", "muslim", "tirmidhi", "nasai", "ibnmajah", "malik", "nawawi", "qudsi", "dehlawi"}

// TestCorpusFigures is the one-off measurement over the ten Arabic collections (skipped
// unless ATHAR_CORPUS names the directory holding ara-*.json.gz): how many hadiths get a
// route, how many routes and links, how many chains are given by reference.
func TestCorpusFigures(t *testing.T) {
	if corpusDir() == "" {
		t.Skip("ATHAR_CORPUS not set")
	}
	fmt.Printf("| collection | hadiths | with a route | routes | links | to the Prophet | by reference | µs/hadith |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	var all [7]int
	var allDur time.Duration
	for _, c := range collections {
		texts := loadEdition(t, "ara-"+c)
		var n, withRoute, routes, links, prophet, ref int
		start := time.Now()
		for _, text := range texts {
			is := Segment(text)
			n++
			if len(is.Routes) > 0 {
				withRoute++
			}
			routes += len(is.Routes)
			links += is.Links()
			for _, r := range is.Routes {
				if !r.Prophet.Empty() {
					prophet++
					break
				}
			}
			if is.Ref != nil {
				ref++
			}
		}
		d := time.Since(start)
		allDur += d
		fmt.Printf("| %s | %d | %d (%.1f%%) | %d | %d | %d | %d | %.0f |\n", c, n, withRoute, 100*float64(withRoute)/float64(n), routes, links, prophet, ref, float64(d.Microseconds())/float64(n))
		for i, v := range []int{n, withRoute, routes, links, prophet, ref} {
			all[i] += v
		}
	}
	fmt.Printf("| all | %d | %d (%.1f%%) | %d | %d | %d | %d | %.0f |\n", all[0], all[1], 100*float64(all[1])/float64(all[0]), all[2], all[3], all[4], all[5], float64(allDur.Microseconds())/float64(all[0]))
}

// TestTopNames lists the most frequent written names (folded), to choose the built-in
// table's entries (ISNAD_TOP=1).
func TestTopNames(t *testing.T) {
	if corpusDir() == "" || os.Getenv("ISNAD_TOP") == "" {
		t.Skip("ATHAR_CORPUS or ISNAD_TOP not set")
	}
	last := map[string]int{}
	anyl := map[string]int{}
	for _, c := range collections {
		for _, text := range loadEdition(t, "ara-"+c) {
			is := Segment(text)
			for _, r := range is.Routes {
				for i, l := range r.Links {
					k := search.Normalize(l.Name.Text)
					anyl[k]++
					if i == len(r.Links)-1 {
						last[k]++
					}
				}
			}
		}
	}
	for _, m := range []map[string]int{last, anyl} {
		type kv struct {
			k string
			v int
		}
		var kvs []kv
		for k, v := range m {
			kvs = append(kvs, kv{k, v})
		}
		sort.Slice(kvs, func(i, j int) bool { return kvs[i].v > kvs[j].v })
		for i := 0; i < 120 && i < len(kvs); i++ {
			fmt.Printf("%d\t%s\n", kvs[i].v, kvs[i].k)
		}
		fmt.Println("----")
	}
}

// TestOpeningCoverage measures NarratorOfRecord over the ten English collections and, with
// ISNAD_MISSES=n, prints n openings it does not cover per collection.
func TestOpeningCoverage(t *testing.T) {
	if corpusDir() == "" {
		t.Skip("ATHAR_CORPUS not set")
	}
	misses := 0
	fmt.Sscan(os.Getenv("ISNAD_MISSES"), &misses)
	r := NewResolver()
	kinds := map[string]int{}
	defer func() {
		for _, k := range openingKinds {
			fmt.Printf("| %s | %d |\n", k, kinds[k])
		}
	}()
	fmt.Printf("| collection | hadiths | narrator found | resolved to a known person |\n|---|---:|---:|---:|\n")
	for _, c := range collections {
		texts := loadEdition(t, "eng-"+c)
		keys := make([]int, 0, len(texts))
		for k := range texts {
			keys = append(keys, k)
		}
		sort.Ints(keys)
		var n, found, resolved, shown int
		for _, k := range keys {
			text := texts[k]
			n++
			name, _, _, kind, ok := narratorOfRecord(text)
			if ok {
				kinds[openingKinds[kind]]++
				found++
				if r.Resolve(name).ID != "" {
					resolved++
				}
			} else if shown < misses {
				shown++
				rs := []rune(text)
				if len(rs) > 110 {
					rs = rs[:110]
				}
				fmt.Printf("  MISS %s:%d %s\n", c, k, string(rs))
			}
		}
		fmt.Printf("| %s | %d | %d (%.1f%%) | %d (%.1f%%) |\n", c, n, found, pct(found, n), resolved, pct(resolved, n))
	}
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// TestOpeningNames prints the most frequent unresolved narrator names and a sample of the
// names found (ISNAD_NAMES=1).
func TestOpeningNames(t *testing.T) {
	if corpusDir() == "" || os.Getenv("ISNAD_NAMES") == "" {
		t.Skip("ATHAR_CORPUS or ISNAD_NAMES not set")
	}
	r := NewResolver()
	un := map[string]int{}
	for _, c := range collections {
		i := 0
		for _, text := range loadEdition(t, "eng-"+c) {
			name, _, _, ok := NarratorOfRecord(text)
			if !ok {
				continue
			}
			if i++; i%400 == 0 {
				fmt.Printf("  SAMPLE %s: %q <- %.60s\n", c, name, text)
			}
			if r.Resolve(name).ID == "" {
				un[LatinKey(name)+" | "+name]++
			}
		}
	}
	type kv struct {
		k string
		v int
	}
	var kvs []kv
	for k, v := range un {
		kvs = append(kvs, kv{k, v})
	}
	sort.Slice(kvs, func(i, j int) bool { return kvs[i].v > kvs[j].v })
	for i := 0; i < 90 && i < len(kvs); i++ {
		fmt.Printf("%d\t%s\n", kvs[i].v, kvs[i].k)
	}
}
