package replica

import (
	"context"
	"fmt"
	"strconv"

	"github.com/athar-hadith/athar/internal/athar"
)

// StateGraph is the reserved graph in which a replica keeps its own state in its local
// store: which log it follows, the position of the last entry it applied, and that entry's
// outcome. Keeping it in the store means the position moves in the same transaction as the
// change it records: it can never run ahead of (or fall behind) what the graph holds, even
// when the process is killed mid-apply. Replica.Store hides it from whole-graph reads.
const StateGraph athar.ID = "graph:replica"

// stateNode is the subject of the state's quads.
const stateNode athar.ID = "graph:replica#state"

// The state's predicates and the datatype of its values (under the graph's own IRI; not
// part of the vocabulary).
var (
	predLog      = StateGraph.IRI() + "#log"
	predPosition = StateGraph.IRI() + "#position"
	predOutcome  = StateGraph.IRI() + "#outcome" // "ok" or the error code
	predMessage  = StateGraph.IRI() + "#message" // the error's message; "" when ok
	stateValue   = StateGraph.IRI() + "#value"
)

// The state is always the same four quads, and each change replaces some of them one for
// one, with values of a datatype of its own (so they share no node with the graph's data).
// That matters: on Cayley's KV backend (bbolt), one transaction that removed the quads
// (s p a g) and (s p c g) and added (s p b g) left (s p b g) reading back with an empty
// subject, predicate and label (memstore was fine). The first version of this state, which
// dropped its message quad when an entry succeeded after a refused one, did exactly that.
// Only ever replacing one quad by one, the state stays clear of it.

// state is what a replica records about itself.
type state struct {
	log      string
	position int64
	outcome  Outcome // of the entry at position
}

func (s state) quads() []athar.Quad {
	if s.position == 0 && s.log == "" {
		return nil
	}
	g, n := StateGraph.IRI(), stateNode.IRI()
	code := "ok"
	if !s.outcome.OK {
		code = string(s.outcome.Code)
	}
	v := func(x string) athar.Term { return athar.Term{Literal: x, Datatype: stateValue} }
	return []athar.Quad{
		{Subject: n, Predicate: predLog, Object: v(s.log), Label: g},
		{Subject: n, Predicate: predPosition, Object: v(strconv.FormatInt(s.position, 10)), Label: g},
		{Subject: n, Predicate: predOutcome, Object: v(code), Label: g},
		{Subject: n, Predicate: predMessage, Object: v(s.outcome.Message), Label: g},
	}
}

// readState reads the state from the store; a store that never followed a log has none.
func readState(ctx context.Context, st athar.Store) (state, error) {
	qs, err := st.QuadsAbout(ctx, []athar.ID{stateNode})
	if err != nil {
		return state{}, fmt.Errorf("read replica state: %w", err)
	}
	var s state
	s.outcome.OK = true
	for _, q := range qs {
		if q.Label != StateGraph.IRI() {
			continue
		}
		switch q.Predicate {
		case predLog:
			s.log = q.Object.Literal
		case predPosition:
			n, err := strconv.ParseInt(q.Object.Literal, 10, 64)
			if err != nil {
				return state{}, fmt.Errorf("read replica state: position %q: %w", q.Object.Literal, err)
			}
			s.position = n
		case predOutcome:
			if q.Object.Literal != "ok" {
				s.outcome = Outcome{Code: athar.Code(q.Object.Literal)}
			}
		case predMessage:
			s.outcome.Message = q.Object.Literal
		}
	}
	if s.outcome.OK {
		s.outcome.Message = ""
	}
	return s, nil
}

// stateStore is the local store as the replica's importer writes to it: while an entry is
// being applied (begin), every Apply also moves the state to that entry, in the same
// transaction. Only the replica's apply loop writes through it, one entry at a time.
type stateStore struct {
	athar.Store
	log       string // the log followed, written into every state
	cur       state  // the state as stored
	applying  int64  // the entry being applied; 0 when none
	committed bool   // an Apply has moved the state to applying
}

func (s *stateStore) begin(position int64) { s.applying, s.committed = position, false }

func (s *stateStore) end() { s.applying, s.committed = 0, false }

// Apply implements athar.Store: the changes, and the state moved to the entry being
// applied (with outcome ok: an Apply is the last step of every write that succeeds), as
// one transaction.
func (s *stateStore) Apply(ctx context.Context, cs ...athar.Changeset) error {
	if s.applying == 0 {
		return s.Store.Apply(ctx, cs...)
	}
	next := state{log: s.log, position: s.applying, outcome: Outcome{OK: true}}
	all := append(append(make([]athar.Changeset, 0, len(cs)+1), cs...), s.change(next))
	if err := s.Store.Apply(ctx, all...); err != nil {
		return err
	}
	s.cur, s.committed = next, true
	return nil
}

// set moves the state to position on its own (an entry that changed nothing, or was
// refused), with its outcome.
func (s *stateStore) set(ctx context.Context, position int64, o Outcome) error {
	next := state{log: s.log, position: position, outcome: o}
	if err := s.Store.Apply(ctx, s.change(next)); err != nil {
		return fmt.Errorf("record replica position %d: %w", next.position, err)
	}
	s.cur = next
	return nil
}

func (s *stateStore) change(next state) athar.Changeset {
	return athar.Diff(StateGraph, s.cur.quads(), next.quads())
}

// view is the local store as readers see it: the graph, without the replica's state.
type view struct{ athar.Store }

// Quads implements athar.Store, leaving out the state graph.
func (v view) Quads(ctx context.Context, fn func(athar.Quad) error) error {
	g := StateGraph.IRI()
	return v.Store.Quads(ctx, func(q athar.Quad) error {
		if q.Label == g {
			return nil
		}
		return fn(q)
	})
}

// View returns st for reading as Replica.Store does, without the replica's own state: the
// local graph, served before the replica can be opened (while the database is unreachable).
func View(st athar.Store) athar.Store { return view{st} }

// Position returns the last log entry applied to st, 0 when it never followed a log.
func Position(ctx context.Context, st athar.Store) (int64, error) {
	s, err := readState(ctx, st)
	return s.position, err
}
