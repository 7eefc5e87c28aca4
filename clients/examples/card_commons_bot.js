// Card Commons starter bot: each heart costs 1, the Q♠ 13; lowest total wins.
// Plan: pass high spades and hearts; follow with the highest card that still loses the trick; when void,
// dump the Q♠, then the highest heart, then the highest card. Run: `node card_commons_bot.js serve --port 9002`.
const { run, cards: { highest, ledSuit, lowest, ofSuit, rank, suit, winningCard } } = require("trickarena");

function burden(card) {
  if (card === "QS") return 50;
  if (suit(card) === "S" && rank(card) > 12) return 30 + rank(card); // K♠, A♠ catch the queen
  return rank(card) + (suit(card) === "H" ? 14 : 0);
}

const heaviestFirst = (cards) => [...cards].sort((a, b) => burden(b) - burden(a));

run({
  name: "card-commons-starter-js",
  games: ["card-commons"],
  choose(view) {
    const { kind, count, legal } = view.decision;
    if (kind === "pass") return heaviestFirst(legal).slice(0, count);
    const led = ledSuit(view);
    if (led === null) {
      const nonHearts = legal.filter((c) => suit(c) !== "H");
      return lowest(nonHearts.length ? nonHearts : legal);
    }
    const following = ofSuit(legal, led);
    if (!following.length) return heaviestFirst(legal)[0];
    const under = following.filter((c) => rank(c) < rank(winningCard(view)));
    if (under.length) return highest(under);
    // Forced to win the trick: if we are last, win it with our highest card and keep the low ones.
    const last = view.trick.cards.length === view.players - 1;
    return last && !following.includes("QS") ? highest(following) : lowest(following);
  },
});
