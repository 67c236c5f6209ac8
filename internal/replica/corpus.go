package replica

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/athar-hadith/athar/internal/hadith"
	"github.com/athar-hadith/athar/internal/ingest"
)

// KindCorpus is a batch of corpus records (Args: CorpusArgs): every replica imports them
// with ingest.Local.ImportHadiths, which writes only the records that changed.
const KindCorpus Kind = "corpus"

// CorpusArgs are the arguments of a corpus entry.
type CorpusArgs struct {
	Records []hadith.Record `json:"records"`
}

// corpusEntryRecords is how many records one log entry holds: a few MB of JSON, and one
// apply of a few transactions of ingest's batch size.
const corpusEntryRecords = 500

// ImportHadiths logs the records (those failing hadith.Record.Check are refused here and
// not logged), in entries of corpusEntryRecords, pipelined, and returns the results of
// applying them here.
func (r *Replica) ImportHadiths(ctx context.Context, recs []hadith.Record) []ingest.HadithResult {
	out := make([]ingest.HadithResult, len(recs))
	for i := range recs {
		out[i].Key = recs[i].Key()
	}
	if err := r.Sync(ctx); err != nil {
		for i := range out {
			out[i].Err = err
		}
		return out
	}
	type sent struct {
		idx []int
		ch  chan applied
		pos int64
	}
	var waits []sent
	var batch []hadith.Record
	var idx []int
	send := func() {
		if len(batch) == 0 {
			return
		}
		defer func() { batch, idx = nil, nil }()
		args, err := json.Marshal(CorpusArgs{Records: batch})
		if err == nil {
			var ch chan applied
			var pos int64
			ch, pos, err = r.append(ctx, Entry{Kind: KindCorpus, Source: "corpus", Args: args})
			if err == nil {
				waits = append(waits, sent{idx, ch, pos})
				return
			}
		}
		for _, i := range idx {
			out[i].Err = err
		}
	}
	for i := range recs {
		if err := recs[i].Check(); err != nil {
			out[i].Err = ingestInvalid(recs[i], err)
			continue
		}
		batch = append(batch, recs[i])
		idx = append(idx, i)
		if len(batch) >= corpusEntryRecords {
			send()
		}
	}
	send()
	for _, w := range waits {
		a, err := r.await(ctx, w.ch, w.pos)
		if err == nil {
			err = a.err
		}
		for j, i := range w.idx {
			if err != nil {
				out[i].Err = err
			} else if j < len(a.hadiths) {
				out[i] = a.hadiths[j]
			}
		}
	}
	return out
}

func ingestInvalid(r hadith.Record, err error) error {
	return fmt.Errorf("import %s: %w", r.Label(), err)
}

// ImportHadiths implements ingest.Writer.
func (b *Background) ImportHadiths(ctx context.Context, recs []hadith.Record) []ingest.HadithResult {
	rep, err := b.writer()
	if err != nil {
		out := make([]ingest.HadithResult, len(recs))
		for i := range out {
			out[i].Key, out[i].Err = recs[i].Key(), err
		}
		return out
	}
	return rep.ImportHadiths(ctx, recs)
}
