// Package athar holds Athar's domain: identifiers, the entity and claim model, the
// vocabulary's shape, the Qur'an's structure, the changesets every write is made of, the
// Store contract and the error type. It imports only the standard library; every adapter
// (the Cayley store, the narration parser, the HTTP and GraphQL layers) depends on it.
package athar
