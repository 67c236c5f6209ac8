//go:build bench

package cayleystore

import (
	"os"

	"github.com/cayleygraph/cayley/clog"
	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/kv"
	_ "github.com/cayleygraph/cayley/graph/kv/bbolt" // registers "bbolt"; not part of kv/all
	cayleyleveldb "github.com/cayleygraph/cayley/graph/kv/leveldb"
	"github.com/dgraph-io/badger/v2"
	hkv "github.com/hidal-go/hidalgo/kv"
	"github.com/hidal-go/hidalgo/kv/flat"
	hbadger "github.com/hidal-go/hidalgo/kv/flat/badger"
)

// EmbeddedBackends are Cayley's key-value backends that keep the graph on local disk and
// are safe with concurrent readers and a writer: the candidates for Athar's embedded store
// (docs/BENCHMARKS.md, "Choice of embedded backend", has the measurement). bbolt is the one
// Athar uses; the others are registered for that comparison.
var EmbeddedBackends = []string{"bbolt", "leveldb", "badger"}

// Cayley's graph/kv registers every hidalgo backend in an init function that loops over
// hidalgo's registry. Since Go 1.21 packages are initialised in import-path order among
// those ready, so graph/kv (github.com/cayleygraph/...) runs before hidalgo's backends
// (github.com/hidal-go/...) have registered and finds none: "leveldb" and "badger" are then
// unknown to graph.InitQuadStore. This package's init runs after all its imports, so it
// registers them here, the way graph/kv would have.
func init() {
	if !graph.IsRegistered("leveldb") {
		// Cayley's own leveldb functions: ErrDatabaseExists on init of an existing store, and
		// synchronous writes unless the "nosync" option is set.
		kv.Register("leveldb", kv.Registration{
			InitFunc:     cayleyleveldb.Create,
			NewFunc:      cayleyleveldb.Open,
			IsPersistent: true,
		})
	}
	if !graph.IsRegistered("badger") {
		kv.Register("badger", kv.Registration{
			InitFunc:     openBadger,
			NewFunc:      openBadger,
			IsPersistent: true,
		})
	}
}

// openBadger opens (creating if needed) a Badger database in dir with Badger's defaults
// (synchronous writes among them), two changes: Badger's chatty INFO log is dropped and its
// warnings go to Cayley's log (which Athar routes to slog); and Truncate is set, so that a
// store whose last value-log write was cut short by a crash opens again, dropping the
// uncommitted tail, rather than refusing to open until someone intervenes.
func openBadger(dir string, _ graph.Options) (hkv.KV, error) {
	if dir == "" {
		return nil, kv.ErrEmptyPath
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	db, err := hbadger.Open(badger.DefaultOptions(dir).WithLogger(badgerLog{}).WithTruncate(true))
	if err != nil {
		return nil, err
	}
	return flat.Upgrade(db), nil
}

// badgerLog passes Badger's warnings and errors to Cayley's log and drops the rest.
type badgerLog struct{}

func (badgerLog) Errorf(format string, args ...any)   { clog.Errorf("badger: "+format, args...) }
func (badgerLog) Warningf(format string, args ...any) { clog.Warningf("badger: "+format, args...) }
func (badgerLog) Infof(string, ...any)                {}
func (badgerLog) Debugf(string, ...any)               {}
