// Types of the Trick Arena JavaScript SDK (clients/js). A bot is one function: choose(view) -> move.

/** Card code: rank 2-9 T J Q K A + suit C D H S, e.g. "QS", "TH". */
export type CardCode = string;
export type GameId = "sore-spot" | "card-commons" | "sloppy-seconds" | "spot-hearts";
/** The values a view's enumerated fields take; GET /api/games/{game}/schema has each game's exact ones. */
export type Phase = "sore" | "pass" | "play" | "over";
/** Where a round's pass goes; "hold": a round without a pass. */
export type PassDirection = "left" | "right" | "across" | "hold";
export type Suit = "C" | "D" | "H" | "S";

/** What the seat must decide: a card to play, the sore card (Sore Spot), or `count` cards to pass. */
export interface Decision {
  kind: "play" | "sore" | "pass";
  count: number;
  legal: CardCode[];
}

/** A play (one card) or a pass (a list of `count` distinct legal cards). */
export type Move = CardCode | CardCode[];

export interface TrickCard { seat: number; card: CardCode }

/** The trick being played (`view.trick`): each card with its seat; `leader` null outside play. */
export interface CurrentTrick {
  leader: number | null;
  cards: TrickCard[];
}

/** A finished trick (`view.tricks`): plain codes in play order from the leader; `winner` null only for
 * Sore Spot's all-Ace trick. */
export interface Trick {
  leader: number;
  cards: CardCode[];
  winner: number | null;
}

export interface RoundPoints { dealer: number; points: number[] }

/** A seat's view: its own hand plus the public table; `decision` null and `legal` empty when it has nothing
 * to decide. The optional members belong to the games that have them. */
export interface View {
  game: GameId;
  players: number;
  options: Record<string, unknown>;
  version: number;
  round: number;
  dealer: number;
  phase: Phase;
  to_act: number[];
  hand_sizes: number[];
  trick: CurrentTrick;
  tricks: Trick[];
  scores: number[];
  rounds: RoundPoints[];
  over: boolean;
  winners: number[];
  seat: number;
  hand: CardCode[];
  decision: Decision | null;
  legal: CardCode[];
  /** Games with a pass or a sore card: your choice, until every seat has chosen. */
  chosen?: CardCode[];
  /** Hearts games, after the pass. */
  passed?: CardCode[];
  received?: CardCode[];
  pass_direction?: PassDirection;
  /** Spot Hearts. */
  hearts_broken?: boolean;
  /** Sloppy Seconds: trump once set, the suits broken in order. */
  trump?: Suit | null;
  broken?: Suit[];
  /** Sore Spot: each seat's sore card, null until every seat has laid one. */
  sore_cards?: Array<CardCode | null>;
}

/** The body of the arena's POST {url}/start and /end notifications. */
export interface GameInfo {
  protocol: 1;
  game: GameId;
  table: string;
  match: string;
  seat: number;
  players?: number;
  options?: Record<string, unknown>;
  totals?: number[];
  winners?: number[];
}

export interface Bot {
  /** Shown on the ladder (GET / of the bot protocol). */
  name?: string;
  author?: string;
  /** Reported in GET /. */
  version?: string;
  /** The games GET / advertises; default all four. */
  games?: GameId[];
  /** true: decisions of several matches may run at once; default one at a time. */
  concurrent?: boolean;
  choose(view: View & { decision: Decision; legal: CardCode[] }): Move | Promise<Move>;
  onStart?(info: GameInfo): void | Promise<void>;
  onEnd?(info: GameInfo): void | Promise<void>;
}

export interface BotInfo { name: string; author: string; version: string; games: GameId[] }

export interface SeatState {
  table_id: string;
  seat: number;
  version: number;
  status: "playing" | "over";
  to_act: number[];
  your_turn: boolean;
  view: View;
  deadline: number | null;
}

/** One decision of your bot in a finished match (`GET /api/matches/{id}/bots/{bot}/decisions`). */
export interface LoggedDecision {
  game_no: number;
  version: number;
  seat: number;
  latency_ms: number;
  outcome: string;
  detail: string;
  answer: string | null;
  move: string | string[] | null;
  fallback: boolean;
  request: { protocol: number; game: GameId; table: string; match: string; seat: number; decision: any;
    deadline_ms: number; view: any; legal: string[] };
}

export interface DecisionLog {
  match_id: string;
  bot_id: string;
  game: GameId;
  status: string;
  decisions: LoggedDecision[];
}

export interface ReplayRecord {
  game: GameId;
  players: number;
  options: Record<string, unknown>;
  deals: Array<{ dealer: number; hands: CardCode[][] }>;
  moves: Array<{ seat: number; move: Move }>;
  seed?: number | string;
  /** Dealing version (docs/deals.md): 2; present whenever the record has a seed. */
  dealing?: number;
  seed_commitment?: string;
  seed_nonce?: string;
}

export interface VerifyResult {
  ok: boolean;
  rounds: number;
  commitment: "verified" | "absent" | "mismatch";
  problems: string[];
}

export class ApiError extends Error {
  status: number;
  problem: { type?: string; title?: string; status?: number; detail?: string; legal?: CardCode[] };
  readonly legal: CardCode[] | null;
}
export class ApiUnavailable extends Error {}

export interface ClientOptions { timeoutMs?: number; retries?: number; backoffMs?: number; maxBackoffMs?: number;
  signal?: AbortSignal }

/** An account as GET /api/account shows it to its key's holder. */
export interface Account {
  account_id: string;
  created: number;
  disabled: boolean;
  has_key: boolean;
  key_created: number | null;
  bots: number;
  quotas: { bots: number; bots_per_ladder: number };
}

/** The answer to opening an account or rotating its key: the only times the key is shown. */
export interface AccountKey extends Account { api_key: string }

/** A finished game to analyse: a match's game (`matchId`, `gameNo`) or a table (`tableId`). */
export interface AnalysisTarget { matchId?: string; gameNo?: number; tableId?: string; budgetMs?: number }

/** Every public route ("GET /api/games/{game_id}") → the ArenaClient method calling it. */
export const ENDPOINTS: Readonly<Record<string, string>>;
/** An unrated match between chosen bots (POST /api/challenges, GET /api/challenges/{id}). */
export interface Challenge {
  challenge_id: string;  // also its match's id
  status: "queued" | "running" | "played" | "aborted";
  challenger: string;
  game: GameId;
  players: number;
  games: number;
  duplicate: boolean;
  options: Record<string, unknown>;
  bots: string[];  // bot id per seat of game 0 (house bots as "house:NAME")
  names: string[];
  created: number;
  match: any;  // the match summary: seed, places, totals, strikes and replays once played
  url: string;
  match_url: string;
  web_url: string;
}

export class ArenaClient {
  constructor(baseUrl: string, options?: ClientOptions);
  request(method: string, path: string, options?: { body?: unknown; params?: Record<string, unknown>;
    token?: string | null; timeoutMs?: number; retry?: boolean }): Promise<any>;
  health(): Promise<{ status: "ok" | "degraded"; redis: boolean; refusing_writes: string | null }>;
  games(): Promise<any[]>;
  game(gameId: GameId): Promise<any>;
  gameSchema(gameId: GameId): Promise<Record<string, unknown>>;
  tables(limit?: number): Promise<any[]>;
  createTable(game: GameId, seats: string[], options?: Record<string, unknown>, token?: string | null): Promise<any>;
  table(tableId: string): Promise<any>;
  replay(tableId: string): Promise<ReplayRecord>;
  join(tableId: string, seat: number): Promise<{ table_id: string; seat: number; token: string;
    state_url: string; moves_url: string }>;
  seatState(tableId: string, seat: number, token: string, after?: number | null, wait?: number): Promise<SeatState>;
  move(tableId: string, seat: number, token: string, move: Move, expectedVersion: number): Promise<any>;
  registerBot(name: string, games: GameId[], url?: string | null, key?: string | null): Promise<any>;
  updateBot(botId: string, token: string, changes: { games?: GameId[]; url?: string | null; enabled?: boolean;
    accepts_challenges?: boolean }): Promise<any>;
  deleteBot(botId: string, token: string): Promise<null>;
  createAccount(): Promise<AccountKey>;
  account(key: string): Promise<Account>;
  accountBots(key: string): Promise<any[]>;
  adoptBot(botId: string, key: string, ownerToken: string): Promise<any>;
  rotateKey(key: string): Promise<AccountKey>;
  revokeKey(key: string): Promise<null>;
  bot(botId: string): Promise<any>;
  bots(game?: GameId | null): Promise<any[]>;
  botMatches(botId: string, options?: { ladder?: string | null; limit?: number | null; cursor?: number | null }):
    Promise<{ bot_id: string; ladder_id: string; matches: any[]; next_cursor: number | null; next: string | null }>;
  exportMatches(botId: string, options?: { since?: number | null; cursor?: string | null; limit?: number }):
    AsyncGenerator<any>;
  exportLines(botId: string, options?: { since?: number | null; cursor?: string | null; limit?: number }):
    AsyncGenerator<string>;
  ladderSeats(botId: string, ownerToken: string, version?: string | null): Promise<any[]>;
  watchLadderSeats(botId: string, ownerToken: string, options?: { after?: number | null; waitS?: number; version?: string | null }):
    Promise<{ seats: any[]; version: number }>;
  ladders(): Promise<any[]>;
  ranking(ladderId: string, options?: { limit?: number | null; offset?: number | null }): Promise<any>;
  botHistory(ladderId: string, botId: string): Promise<any>;
  recentMatches(ladderId: string): Promise<any[]>;
  match(matchId: string): Promise<any>;
  liveMatch(matchId: string): Promise<any>;
  requestAnalysis(seat: number, where: AnalysisTarget): Promise<any>;
  analysis(seat: number, where: AnalysisTarget): Promise<any>;
  matchReplay(matchId: string, gameNo?: number): Promise<ReplayRecord>;
  decisions(matchId: string, botId: string, token: string, options?: { game?: number | null }): Promise<DecisionLog>;
  challenge(token: string, game: GameId, bots: string[], options?: { games?: number | null;
    duplicate?: boolean | null; options?: Record<string, unknown> }): Promise<Challenge>;
  getChallenge(challengeId: string): Promise<Challenge>;
  createTournament(key: string, game: GameId, format: "round-robin" | "swiss", bots: string[],
    fields?: Record<string, unknown>): Promise<Record<string, any>>;
  tournament(tournamentId: string): Promise<Record<string, any>>;
  tournamentStandings(tournamentId: string): Promise<Record<string, any>>;
  enterTournament(tournamentId: string, botId: string, token: string): Promise<Record<string, any>>;
  get(path: string, params?: Record<string, unknown>): Promise<any>;
}

export const GAME_IDS: GameId[];
export function run(bot: Bot, argv?: string[], options?: { exit?: boolean }): Promise<number>;
export function botInfo(bot: Bot): BotInfo;
export function createBotServer(bot: Bot): import("node:http").Server & { calls: number };
export function serve(bot: Bot, options?: { host?: string; port?: number }):
  Promise<import("node:http").Server & { calls: number; url: string }>;
export function playSeat(api: ArenaClient, tableId: string, seat: number, token: string, bot: Bot,
  options?: { onRefused?: "throw" | "fallback"; waitS?: number; onMove?: (state: SeatState, move: Move) => void }):
  Promise<SeatState>;
export function practice(api: ArenaClient, bot: Bot, game: GameId, opponents?: string[],
  options?: Record<string, unknown>): Promise<{ tableId: string; final: SeatState }>;
export function playLadder(apiUrl: string, botId: string, ownerToken: string, bot: Bot,
  options?: { waitS?: number; signal?: AbortSignal; maxGames?: number; log?: (line: string) => void }):
  Promise<number>;

export namespace cards {
  const RANKS: string;
  const SUITS: string;
  function rank(card: CardCode): number;
  function suit(card: CardCode): string;
  function lowest(cards: CardCode[]): CardCode;
  function highest(cards: CardCode[]): CardCode;
  function ofSuit(cards: CardCode[], suit: string): CardCode[];
  function byRank(cards: CardCode[], descending?: boolean): CardCode[];
  function trickCards(view: View): CardCode[];
  function ledSuit(view: View): string | null;
  function winningCard(view: View, trump?: string | null): CardCode | null;
  function firstLegal(view: View): Move;
}

export namespace deals {
  const CANONICAL: CardCode[];
  class Draws {
    constructor(seed: number | string, purpose: string);
    nextBytes(count: number): Buffer;
    below(m: number): number;
  }
  function deal(seed: number | string, round: number, deck: CardCode[], players: number, dealer: number): CardCode[][];
  function firstDealer(seed: number | string, players: number): number;
  function seedCommitment(seed: number | string, nonce: string): string;
  function verifyRecord(record: ReplayRecord): VerifyResult;
}
