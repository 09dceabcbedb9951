// Package jsonscan reads just enough of a JSON document to judge an answer: it finds members and
// elements and skips values without decoding them into Go values, and without allocating. The
// JSON-RPC verifier (package check) and the WebSocket transport (transport/ws, which matches
// answers to requests by id) use it on every answer, where encoding/json would cost a decode per
// answer.
//
// Every function takes the document as a byte slice and returns sub-slices of it; nothing is
// copied. Errors say what was expected at which byte offset.
package jsonscan
