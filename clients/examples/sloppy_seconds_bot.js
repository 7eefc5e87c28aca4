// Sloppy Seconds starter bot: per suit, the player with the second-highest total of card values scores it.
// Plan: aim to be second in each suit, not first: follow with a middling card, spend the cheapest trump
// when only trumps are left, lead from our longest suit. Run: `node sloppy_seconds_bot.js serve --port 9003`.
const { run, cards: { byRank, ledSuit, lowest, suit } } = require("trickarena");

const middle = (cards) => byRank(cards)[Math.floor(cards.length / 2)];

run({
  name: "sloppy-seconds-starter-js",
  games: ["sloppy-seconds"],
  choose(view) {
    const { kind, count, legal } = view.decision;
    if (kind === "pass") return byRank(legal).slice(0, count); // no passing in this game today
    if (ledSuit(view) === null) {
      const counts = {};
      for (const c of legal) counts[suit(c)] = (counts[suit(c)] || 0) + 1;
      const longest = Object.keys(counts).sort((a, b) => counts[b] - counts[a] || (a < b ? 1 : -1))[0];
      return middle(legal.filter((c) => suit(c) === longest));
    }
    if (view.trump && legal.every((c) => suit(c) === view.trump)) return lowest(legal);
    return middle(legal);
  },
});
