package graph

// The relation fields come from the vocabulary first; gqlgen then generates the executable
// schema from both SDL files.
//
//go:generate go run ../schema/genrel -sdl ../schema/relations.graphqls -go relations_gen.go
//go:generate go run github.com/99designs/gqlgen generate
