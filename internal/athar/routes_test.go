package athar_test

import (
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
)

func TestRouteCount(t *testing.T) {
	n := func(narrator athar.ID, chain ...athar.ID) *athar.Narration {
		return &athar.Narration{Narrator: narrator, Chain: chain}
	}
	tests := []struct {
		name string
		ns   []*athar.Narration
		want int
	}{
		{"none", nil, 0},
		{"one", []*athar.Narration{n("person:umar", "person:a")}, 1},
		{"two students of the same source are two routes", []*athar.Narration{n("person:umar", "person:a"), n("person:umar", "person:b")}, 2},
		{"a transmitter in both chains is one route", []*athar.Narration{n("person:umar", "person:x", "person:a"), n("person:umar", "person:x", "person:b")}, 1},
		{"one's source transmits in the other", []*athar.Narration{n("person:a"), n("person:umar", "person:a")}, 1},
		{"a further route shares a transmitter", []*athar.Narration{
			{Narrator: "person:umar", Chain: []athar.ID{"person:a"}, MoreRoutes: [][]athar.ID{{"person:x", "person:b"}}},
			n("person:umar", "person:x", "person:c"),
		}, 1},
		{"further routes that share no one stay independent", []*athar.Narration{
			{Narrator: "person:umar", Chain: []athar.ID{"person:a"}, MoreRoutes: [][]athar.ID{{"person:y", "person:b"}}},
			n("person:umar", "person:x", "person:c"),
		}, 2},
		{"no chain and no narrator is a route of its own", []*athar.Narration{n(""), n("")}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := athar.RouteCount(tc.ns); got != tc.want {
				t.Errorf("RouteCount = %d, want %d", got, tc.want)
			}
		})
	}
}
