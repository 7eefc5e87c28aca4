import pytest

from engine.cards import CODES, Card, CardError


def test_every_code_round_trips():  # R-CARD
    for i, code in enumerate(CODES):
        card = Card.parse(code)
        assert card == i and str(card) == code and Card.parse(str(card)) == card


@pytest.mark.parametrize(
    "text,code", [("10H", "TH"), ("qs", "QS"), (" 2c ", "2C"), ("10s", "TS"), ("Ad", "AD")]
)
def test_input_spellings(text, code):  # R-CARD: 10H and lower case accepted, canonical output
    assert str(Card.parse(text)) == code


@pytest.mark.parametrize("bad", ["", "1H", "QX", "QSS", "11H", "H2", 12, None, ["QS"]])
def test_malformed_codes_raise(bad):
    with pytest.raises(CardError):
        Card.parse(bad)


def test_card_properties():
    qs = Card.parse("QS")
    assert (qs.rank, qs.suit, repr(qs)) == (12, 3, "Card('QS')")
