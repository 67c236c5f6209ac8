package athar

import (
	"slices"
)

// ChooseName applies the rule that names an entity from what the narrations call it: votes
// counts, for each name, the narrations that give it. The name given by the most narrations
// wins, ties going to the name that sorts first; an entity no narration names is called by
// its id's local part. Every other name, with aliases, becomes the entity's aliases: sorted,
// without duplicates and without the name itself.
func ChooseName(id ID, votes map[string]int, aliases []string) (name string, all []string) {
	best := -1
	for n, v := range votes {
		if v > best || v == best && n < name {
			name, best = n, v
		}
	}
	if name == "" {
		name = id.Local()
	}
	for n := range votes {
		aliases = append(aliases, n)
	}
	slices.Sort(aliases)
	aliases = slices.Compact(aliases)
	aliases = slices.DeleteFunc(aliases, func(a string) bool { return a == name })
	if len(aliases) == 0 {
		return name, nil
	}
	return name, aliases
}
