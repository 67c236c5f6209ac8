package graph

import (
	"encoding/base64"
	"sort"
	"strings"

	"github.com/athar-hadith/athar/graph/model"
	"github.com/athar-hadith/athar/internal/athar"
)

// MaxPage is the largest page a connection returns.
const MaxPage = 100

// cursorPrefix versions the cursor format, so that cursors can change without old ones
// being misread.
const cursorPrefix = "v1:"

// A cursor is the opaque (base64) sort key of the last item of a page: the next page starts
// after that key, so pages stay consistent while the graph changes around them.
func encodeCursor(key string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + key))
}

func decodeCursor(c string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || !strings.HasPrefix(string(b), cursorPrefix) {
		return "", athar.E("", athar.Invalid, "after: %q is not a cursor this API gave", c)
	}
	return strings.TrimPrefix(string(b), cursorPrefix), nil
}

// window is the page of items [from, to) of a list sorted by key.
type window struct {
	from, to int
	total    int
	more     bool
}

// pageArgs checks a connection's arguments: the page size, and the sort key the page
// follows ("" from the start).
func pageArgs(first *int, after *string) (size int, key string, err error) {
	size = 50
	if first != nil {
		size = *first
	}
	if size < 0 || size > MaxPage {
		return 0, "", athar.E("", athar.Invalid, "first: %d is out of range: expected 0 to %d", size, MaxPage)
	}
	if after != nil && *after != "" {
		if key, err = decodeCursor(*after); err != nil {
			return 0, "", err
		}
	}
	return size, key, nil
}

// paginate picks the page of n items (sorted by key(i)) that follows after, first long.
func paginate(n int, key func(int) string, first *int, after *string) (window, error) {
	size, k, err := pageArgs(first, after)
	if err != nil {
		return window{}, err
	}
	from := 0
	if k != "" {
		from = sort.Search(n, func(i int) bool { return key(i) > k })
	}
	to := min(from+size, n)
	return window{from: from, to: to, total: n, more: to < n}, nil
}

func pageInfo(w window, key func(int) string) *model.PageInfo {
	pi := &model.PageInfo{HasNextPage: w.more}
	if w.to > w.from {
		c := encodeCursor(key(w.to - 1))
		pi.EndCursor = &c
	}
	return pi
}

func claimConnection(claims []*athar.Claim, first *int, after *string) (*model.ClaimConnection, error) {
	sort.SliceStable(claims, func(i, j int) bool { return claims[i].SortKey() < claims[j].SortKey() })
	key := func(i int) string { return claims[i].SortKey() }
	w, err := paginate(len(claims), key, first, after)
	if err != nil {
		return nil, err
	}
	return claimPage(w, key, claims[w.from:w.to]), nil
}

// claimPage builds the connection of the window w, whose claims are page (in order; nil
// for a claim a write removed since the window was chosen, which is left out).
func claimPage(w window, key func(int) string, page []*athar.Claim) *model.ClaimConnection {
	conn := &model.ClaimConnection{Edges: []*model.ClaimEdge{}, Nodes: []*model.Claim{}, PageInfo: pageInfo(w, key), TotalCount: w.total}
	for i, c := range page {
		if c == nil {
			continue
		}
		node := &model.Claim{C: c}
		conn.Edges = append(conn.Edges, &model.ClaimEdge{Cursor: encodeCursor(key(w.from + i)), Node: node})
		conn.Nodes = append(conn.Nodes, node)
	}
	return conn
}

// relationKey orders relations by their name as read from the entity, then by claim.
func relationKey(r *model.Relation) string {
	return r.Name + "\x00" + string(r.Direction) + "\x00" + r.Ref.SortKey()
}

func relationConnection(rels []*model.Relation, first *int, after *string) (*model.RelationConnection, error) {
	sort.SliceStable(rels, func(i, j int) bool { return relationKey(rels[i]) < relationKey(rels[j]) })
	key := func(i int) string { return relationKey(rels[i]) }
	w, err := paginate(len(rels), key, first, after)
	if err != nil {
		return nil, err
	}
	conn := &model.RelationConnection{Edges: []*model.RelationEdge{}, Nodes: []*model.Relation{}, PageInfo: pageInfo(w, key), TotalCount: w.total}
	for i := w.from; i < w.to; i++ {
		conn.Edges = append(conn.Edges, &model.RelationEdge{Cursor: encodeCursor(key(i)), Node: rels[i]})
		conn.Nodes = append(conn.Nodes, rels[i])
	}
	return conn, nil
}
