// Sore Spot starter bot: every card won scores +1, but cards of your sore suit cost their number.
// Plan: lay our sore card from the suit we hold least of; then win tricks with off-suit non-Aces (they beat
// the suit led), but duck a trick that already holds our sore suit. Run: `node sore_spot_bot.js serve --port 9004`.
const { run, cards: { highest, ledSuit, lowest, ofSuit, suit, trickCards } } = require("trickarena");

run({
  name: "sore-spot-starter-js",
  games: ["sore-spot"],
  choose(view) {
    const { kind, count, legal } = view.decision;
    if (kind === "sore") {
      const counts = {};
      for (const c of legal) counts[suit(c)] = (counts[suit(c)] || 0) + 1;
      const shortest = Object.keys(counts).sort((a, b) => counts[a] - counts[b] || (a < b ? -1 : 1))[0];
      return lowest(ofSuit(legal, shortest));
    }
    if (kind === "pass") return legal.slice(0, count);
    const soreCard = (view.sore_cards || [])[view.seat];
    const mySore = soreCard ? suit(soreCard) : null;
    const led = ledSuit(view);
    if (led === null) {
      const safe = legal.filter((c) => suit(c) !== mySore);
      return highest(safe.length ? safe : legal);
    }
    const offSuit = legal.filter((c) => suit(c) !== led && !c.startsWith("A"));
    if (trickCards(view).some((c) => suit(c) === mySore) || !offSuit.length) {
      const following = ofSuit(legal, led);
      return lowest(following.length ? following : legal); // do not take our own pain
    }
    const notSore = offSuit.filter((c) => suit(c) !== mySore);
    return lowest(notSore.length ? notSore : offSuit);
  },
});
