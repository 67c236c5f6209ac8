package narration

import (
	"fmt"
	"sort"
	"strings"
)

// suggest returns ` (did you mean "x"?)` for the candidates closest to s by edit distance,
// or "" when none is close.
func suggest(s string, candidates []string) string {
	best := Closest(s, candidates, 3)
	if len(best) == 0 {
		return ""
	}
	q := make([]string, len(best))
	for i, b := range best {
		q[i] = fmt.Sprintf("%q", b)
	}
	return " (did you mean " + strings.Join(q, " or ") + "?)"
}

// Closest returns up to n candidates within a small edit distance of s (case-insensitive),
// nearest first.
func Closest(s string, candidates []string, n int) []string {
	type scored struct {
		c string
		d int
	}
	ls := strings.ToLower(s)
	limit := len([]rune(s))/3 + 1
	var out []scored
	for _, c := range candidates {
		if d := levenshtein(ls, strings.ToLower(c)); d <= limit {
			out = append(out, scored{c, d})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].d < out[j].d || out[i].d == out[j].d && out[i].c < out[j].c })
	var res []string
	for i := 0; i < len(out) && i < n; i++ {
		res = append(res, out[i].c)
	}
	return res
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
