package export

import (
	"context"
	"io"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
)

// Narration writes to w exactly the quads narration id asserts, as sealed N-Quads (ended
// by the export trailer). It returns a NotFound error if st holds no such narration.
func Narration(ctx context.Context, w io.Writer, st athar.Store, id athar.ID) error {
	qs, err := st.NarrationQuads(ctx, id)
	if err != nil {
		return err
	}
	if len(qs) == 0 {
		return athar.E("export", athar.NotFound, "no narration %s in the store", id)
	}
	return cayleystore.WriteNQuadsSealed(w, athar.StateImplied(qs))
}

// Graph writes to w, in format, the part of st that opts selects (Select). The whole graph
// as N-Quads streams straight from the store, in one consistent pass, holding one label's
// quads at a time (to merge in the types they imply).
func Graph(ctx context.Context, w io.Writer, st athar.Store, format string, opts Options) error {
	if format == NQuads && opts.Root == "" && opts.Narration == "" && len(opts.Predicates) == 0 {
		enc := cayleystore.NewNQuadsWriter(w)
		s := athar.ImpliedStater{Write: enc.Write}
		if err := st.Quads(ctx, s.Add); err != nil {
			return err
		}
		if err := s.Flush(); err != nil {
			return err
		}
		return enc.Seal()
	}
	sg, err := Select(ctx, st, opts)
	if err != nil {
		return err
	}
	return Write(w, format, sg)
}
