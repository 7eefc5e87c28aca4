// Spot Hearts starter bot: hearts score their rank (A = 14), the Q♠ 25; lowest total wins.
// Plan: pass the most dangerous cards; duck under the winning card when following; dump the Q♠ and big
// hearts when void; lead low. Run: `node spot_hearts_bot.js serve --port 9001` (or `practice`, `ladder`).
const { run, cards: { highest, ledSuit, lowest, ofSuit, rank, suit, winningCard } } = require("trickarena");

/** How much we want to get rid of a card: the Q♠ first, then big spades and hearts, then rank. */
function danger(card) {
  if (card === "QS") return 100;
  if (suit(card) === "S" && rank(card) > 12) return 60 + rank(card);
  return rank(card) + (suit(card) === "H" ? 20 : 0);
}

const worstFirst = (cards) => [...cards].sort((a, b) => danger(b) - danger(a));

run({
  name: "spot-hearts-starter-js",
  games: ["spot-hearts"],
  choose(view) {
    const { kind, count, legal } = view.decision;
    if (kind === "pass") return worstFirst(legal).slice(0, count);
    const led = ledSuit(view);
    if (led === null) return lowest(legal); // we lead: the lowest card gives the lead away
    const following = ofSuit(legal, led);
    if (!following.length) return worstFirst(legal)[0]; // void in the led suit: dump our worst card
    const under = following.filter((c) => rank(c) < rank(winningCard(view)));
    return under.length ? highest(under) : lowest(following);
  },
});
