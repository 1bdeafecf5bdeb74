package quorum

// Kind is a combinator's rule: its name in errors, how many of n members
// it needs, and whether it has a restart guard.
type Kind struct {
	name    string
	needed  func(n int) int
	guarded bool
}

// All needs every member: a MultiLock. A restarted member cannot let a
// second owner in, since the first still holds the others, so it has no
// restart guard.
var All = Kind{name: "multilock", needed: func(n int) int { return n }}

// Majority needs n/2+1 members: a RedLock. Two majorities always share a
// member, which is what makes it exclusive, and what a member that forgets
// its locks on a restart breaks: hence the restart guard.
var Majority = Kind{name: "redlock", needed: func(n int) int { return n/2 + 1 }, guarded: true}
