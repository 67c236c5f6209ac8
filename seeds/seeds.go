// Package seeds embeds the narration documents Athar ships with. Each file cites its source
// at the top. `athar seed` loads them, and `athar serve` loads them into an empty store.
package seeds

import (
	"embed"
	"io/fs"
	"path"
	"sort"
)

//go:embed *.yaml
var files embed.FS

// File is one embedded narration document.
type File struct {
	Name string
	Data []byte
}

// Files returns every embedded document, sorted by name.
func Files() []File {
	names, _ := fs.Glob(files, "*.yaml")
	sort.Strings(names)
	out := make([]File, 0, len(names))
	for _, n := range names {
		data, err := files.ReadFile(n)
		if err != nil {
			panic(err) // embedded: cannot fail
		}
		out = append(out, File{Name: path.Join("seeds", n), Data: data})
	}
	return out
}
