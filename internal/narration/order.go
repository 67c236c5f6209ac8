package narration

import (
	"sort"
	"strings"
)

// Order returns the documents in an order where each comes after the documents defining
// the entities it uses, so that a batch can be imported in one pass. Documents keep their
// relative order where no dependency decides; a cycle leaves the rest in input order (the
// import will then report the undefined ids).
func Order(docs []*Document) []*Document {
	definer := map[string]int{} // entity id -> first document defining it
	for i, d := range docs {
		for _, e := range d.Entities {
			if _, ok := definer[e.ID]; !ok {
				definer[e.ID] = i
			}
		}
	}
	deps := make([][]int, len(docs))
	for i, d := range docs {
		seen := map[int]bool{}
		add := func(id string) {
			if j, ok := definer[id]; ok && j != i && !seen[j] {
				seen[j] = true
				deps[i] = append(deps[i], j)
			}
		}
		for _, c := range d.Claims {
			add(c.Subject)
			add(c.Object)
		}
		add(d.Narration.Narrator)
		for _, p := range d.Narration.Chain {
			add(p)
		}
		for _, r := range d.Narration.Routes {
			for _, p := range r {
				add(p)
			}
		}
		sort.Ints(deps[i])
	}
	state := make([]int, len(docs)) // 0 new, 1 visiting, 2 done
	out := make([]*Document, 0, len(docs))
	var visit func(int)
	visit = func(i int) {
		if state[i] != 0 {
			return
		}
		state[i] = 1
		for _, j := range deps[i] {
			visit(j)
		}
		state[i] = 2
		out = append(out, docs[i])
	}
	for i := range docs {
		visit(i)
	}
	return out
}

// IsNQuads reports whether a file name denotes an N-Quads file rather than a document.
func IsNQuads(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".nq") || strings.HasSuffix(n, ".nquads")
}

// IsDocument reports whether a file name denotes a narration document (YAML or JSON).
func IsDocument(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml") || strings.HasSuffix(n, ".json")
}
