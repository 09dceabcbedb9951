package replay

// RaceEnabled tells the tests of package replay_test whether the race detector is on.
const RaceEnabled = raceEnabled
