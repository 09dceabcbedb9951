package h3

// BufferNote is bufferNote, for the tests of package h3_test.
var BufferNote = bufferNote
