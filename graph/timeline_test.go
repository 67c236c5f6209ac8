package graph

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
)

func TestChronology(t *testing.T) {
	tests := []struct {
		name   string
		events string   // space-separated ids
		claims []string // "subject predicate object-or-year"
		want   string
	}{
		{name: "unrelated events by id", events: "e:c e:a e:b", want: "e:a e:b e:c"},
		{name: "precedes", events: "e:a e:b e:c", claims: []string{"e:c precedes e:b", "e:b precedes e:a"}, want: "e:c e:b e:a"},
		{
			name: "a whole before its parts, its parts before what it precedes", events: "e:badr e:uhud e:a-part e:z-part",
			claims: []string{"e:badr precedes e:uhud", "e:a-part partOf e:uhud", "e:z-part partOf e:badr"},
			want:   "e:badr e:z-part e:uhud e:a-part",
		},
		{
			name: "parts of parts", events: "e:w e:p e:pp e:next",
			claims: []string{"e:w precedes e:next", "e:p partOf e:w", "e:pp partOf e:p"},
			want:   "e:w e:p e:pp e:next",
		},
		{name: "causes", events: "e:a e:b", claims: []string{"e:b causes e:a"}, want: "e:b e:a"},
		{name: "responds to", events: "e:a e:b", claims: []string{"e:a respondsTo e:b"}, want: "e:b e:a"},
		{
			name: "years order what the relations do not, inherited by parts", events: "e:a e:b e:c e:b-part",
			claims: []string{"e:a year 3", "e:b year 2", "e:b-part partOf e:b"},
			want:   "e:b e:b-part e:a e:c",
		},
		{name: "the earliest of variant years", events: "e:a e:b", claims: []string{"e:a year 5", "e:a year 1", "e:b year 2"}, want: "e:a e:b"},
		{name: "a cycle does not stop it", events: "e:a e:b e:c", claims: []string{"e:a precedes e:b", "e:b precedes e:a", "e:c precedes e:a"}, want: "e:c e:a e:b"},
		{
			name: "each cycle broken at the earliest remaining event by year, then id", events: "e:a e:b e:c e:d e:e",
			claims: []string{"e:a precedes e:b", "e:b precedes e:a", "e:c precedes e:d", "e:d precedes e:c", "e:d year 2", "e:c year 3", "e:e precedes e:a"},
			want:   "e:e e:d e:c e:a e:b",
		},
		{name: "non-events are ignored", events: "e:a e:b", claims: []string{"concept:x causes e:a", "e:b precedes e:a"}, want: "e:b e:a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var events []athar.ID
			for _, f := range strings.Fields(tt.events) {
				events = append(events, athar.ID(f))
			}
			by := map[string][]*athar.Claim{}
			for _, c := range tt.claims {
				f := strings.Fields(c)
				cl := &athar.Claim{Subject: athar.ID(f[0]), Predicate: f[1]}
				if f[1] == predYear {
					cl.Value = &athar.Term{Literal: f[2], Datatype: athar.XSDInteger}
				} else {
					cl.Object = athar.ID(f[2])
				}
				by[f[1]] = append(by[f[1]], cl)
			}
			defer func(m int) { maxMatrixEvents = m }(maxMatrixEvents)
			for i := 0; i < 4; i++ { // deterministic whatever the map order
				if i == 2 { // the edges in a map, as for many events
					maxMatrixEvents = 0
				}
				got := chronology(events, by)
				var s []string
				for _, id := range got {
					s = append(s, string(id))
				}
				if strings.Join(s, " ") != tt.want {
					t.Fatalf("got %s, want %s", strings.Join(s, " "), tt.want)
				}
			}
		})
	}
}

func TestRelationFieldsMatchTheVocabulary(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range relationFields {
		key := f.Type + "." + f.Field
		if seen[key] {
			t.Errorf("%s is generated twice", key)
		}
		seen[key] = true
	}
	for _, want := range []string{"Verse.revealedRegarding", "Event.participants", "Event.follows", "Event.precedes", "Person.advises", "Concept.advisedBy", "Narration.transmitters"} {
		if !seen[want] {
			t.Errorf("no generated field %s", want)
		}
	}
}

// TestOrderingByComponentsIsTheWalk: on random graphs of events and other ids with every
// kind of cycle (partOf, precedes, self-parts), the edges the partOf components give are
// those of walking up from each event, and the timeline and the chronology answer the
// same either way (the walk with its edges in a map, as for very many events).
func TestOrderingByComponentsIsTheWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 11))
	preds := []string{predPartOf, predPartOf, predPartOf, predPrecedes, predPrecedes, predCauses, predRespondsTo, predYear}
	for round := 0; round < 300; round++ {
		nEvents, nOther := 1+rng.IntN(40), rng.IntN(6)
		var events []athar.ID
		pick := func() athar.ID {
			if k := rng.IntN(nEvents + nOther); k < nEvents {
				return athar.ID(fmt.Sprintf("event:e%02d", k))
			} else {
				return athar.ID(fmt.Sprintf("concept:c%d", k-nEvents))
			}
		}
		for i := range nEvents {
			events = append(events, athar.ID(fmt.Sprintf("event:e%02d", i)))
		}
		rng.Shuffle(len(events), func(i, j int) { events[i], events[j] = events[j], events[i] })
		by := map[string][]*athar.Claim{}
		for range rng.IntN(4 * nEvents) {
			p := preds[rng.IntN(len(preds))]
			c := &athar.Claim{Subject: pick(), Predicate: p}
			if p == predYear {
				c.Value = &athar.Term{Literal: fmt.Sprint(1 + rng.IntN(5)), Datatype: athar.XSDInteger}
			} else {
				c.Object = pick()
			}
			by[p] = append(by[p], c)
		}
		edges := func(g *eventOrder) map[[2]athar.ID]bool {
			out := map[[2]athar.ID]bool{}
			for a, bs := range g.after {
				for _, b := range bs {
					out[[2]athar.ID{g.ids[a], g.ids[b]}] = true
				}
			}
			return out
		}
		fast := ordering(events, by)
		fastOrder := chronology(events, by)
		fastPlaced, fastUnplaced := partialOrder(events, by)
		saved := maxMatrixEvents
		maxMatrixEvents = 0
		slow := ordering(events, by)
		slowOrder := chronology(events, by)
		slowPlaced, slowUnplaced := partialOrder(events, by)
		maxMatrixEvents = saved
		if !reflect.DeepEqual(edges(fast), edges(slow)) || !reflect.DeepEqual(fast.indeg, slow.indeg) || !reflect.DeepEqual(fast.year, slow.year) {
			t.Fatalf("round %d: the components give\n%v\n%v %v\nthe walk\n%v\n%v %v\nclaims %v", round, edges(fast), fast.indeg, fast.year, edges(slow), slow.indeg, slow.year, by)
		}
		if !reflect.DeepEqual(fastOrder, slowOrder) || !reflect.DeepEqual(fastPlaced, slowPlaced) || !reflect.DeepEqual(fastUnplaced, slowUnplaced) {
			t.Fatalf("round %d: the timeline or the chronology differ", round)
		}
	}
}
