"""Chinese Official mahjong's scoring elements (番种): the 1998 table of 81, each with its points
and its names in three languages, and a hand's count as the elements it holds (entered by the
players, or counted from the tiles in `counting`)."""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ScoringError

Term = tuple[str, str, str]  # (en, zh-Hans, zh-Hant), as scoring.variant.Term

# The 81 elements of the 1998 rules (中国麻将竞赛规则), numbered as there, highest first:
# key → (points, (en, zh-Hans, zh-Hant)). English names are the Green Book's.
ELEMENTS: dict[str, tuple[int, Term]] = {
    # 88
    "big_four_winds": (88, ("Big Four Winds", "大四喜", "大四喜")),
    "big_three_dragons": (88, ("Big Three Dragons", "大三元", "大三元")),
    "all_green": (88, ("All Green", "绿一色", "綠一色")),
    "nine_gates": (88, ("Nine Gates", "九莲宝灯", "九蓮寶燈")),
    "four_kongs": (88, ("Four Kongs", "四杠", "四槓")),
    "seven_shifted_pairs": (88, ("Seven Shifted Pairs", "连七对", "連七對")),
    "thirteen_orphans": (88, ("Thirteen Orphans", "十三幺", "十三幺")),
    # 64
    "all_terminals": (64, ("All Terminals", "清幺九", "清幺九")),
    "little_four_winds": (64, ("Little Four Winds", "小四喜", "小四喜")),
    "little_three_dragons": (64, ("Little Three Dragons", "小三元", "小三元")),
    "all_honors": (64, ("All Honors", "字一色", "字一色")),
    "four_concealed_pungs": (64, ("Four Concealed Pungs", "四暗刻", "四暗刻")),
    "pure_terminal_chows": (64, ("Pure Terminal Chows", "一色双龙会", "一色雙龍會")),
    # 48
    "quadruple_chow": (48, ("Quadruple Chow", "一色四同顺", "一色四同順")),
    "four_pure_shifted_pungs": (48, ("Four Pure Shifted Pungs", "一色四节高", "一色四節高")),
    # 32
    "four_pure_shifted_chows": (32, ("Four Pure Shifted Chows", "一色四步高", "一色四步高")),
    "three_kongs": (32, ("Three Kongs", "三杠", "三槓")),
    "all_terminals_and_honors": (32, ("All Terminals and Honors", "混幺九", "混幺九")),
    # 24
    "seven_pairs": (24, ("Seven Pairs", "七对", "七對")),
    "greater_honors_and_knitted_tiles": (24, ("Greater Honors and Knitted Tiles", "七星不靠",
                                              "七星不靠")),
    "all_even_pungs": (24, ("All Even Pungs", "全双刻", "全雙刻")),
    "full_flush": (24, ("Full Flush", "清一色", "清一色")),
    "pure_triple_chow": (24, ("Pure Triple Chow", "一色三同顺", "一色三同順")),
    "pure_shifted_pungs": (24, ("Pure Shifted Pungs", "一色三节高", "一色三節高")),
    "upper_tiles": (24, ("Upper Tiles", "全大", "全大")),
    "middle_tiles": (24, ("Middle Tiles", "全中", "全中")),
    "lower_tiles": (24, ("Lower Tiles", "全小", "全小")),
    # 16
    "pure_straight": (16, ("Pure Straight", "清龙", "清龍")),
    "three_suited_terminal_chows": (16, ("Three-Suited Terminal Chows", "三色双龙会",
                                         "三色雙龍會")),
    "pure_shifted_chows": (16, ("Pure Shifted Chows", "一色三步高", "一色三步高")),
    "all_fives": (16, ("All Fives", "全带五", "全帶五")),
    "triple_pung": (16, ("Triple Pung", "三同刻", "三同刻")),
    "three_concealed_pungs": (16, ("Three Concealed Pungs", "三暗刻", "三暗刻")),
    # 12
    "lesser_honors_and_knitted_tiles": (12, ("Lesser Honors and Knitted Tiles", "全不靠",
                                             "全不靠")),
    "knitted_straight": (12, ("Knitted Straight", "组合龙", "組合龍")),
    "upper_four": (12, ("Upper Four", "大于五", "大於五")),
    "lower_four": (12, ("Lower Four", "小于五", "小於五")),
    "big_three_winds": (12, ("Big Three Winds", "三风刻", "三風刻")),
    # 8
    "mixed_straight": (8, ("Mixed Straight", "花龙", "花龍")),
    "reversible_tiles": (8, ("Reversible Tiles", "推不倒", "推不倒")),
    "mixed_triple_chow": (8, ("Mixed Triple Chow", "三色三同顺", "三色三同順")),
    "mixed_shifted_pungs": (8, ("Mixed Shifted Pungs", "三色三节高", "三色三節高")),
    "chicken_hand": (8, ("Chicken Hand", "无番和", "無番和")),
    "last_tile_draw": (8, ("Last Tile Draw", "妙手回春", "妙手回春")),
    "last_tile_claim": (8, ("Last Tile Claim", "海底捞月", "海底撈月")),
    "out_with_replacement_tile": (8, ("Out with Replacement Tile", "杠上开花", "槓上開花")),
    "robbing_the_kong": (8, ("Robbing the Kong", "抢杠和", "搶槓和")),
    # 6
    "all_pungs": (6, ("All Pungs", "碰碰和", "碰碰和")),
    "half_flush": (6, ("Half Flush", "混一色", "混一色")),
    "mixed_shifted_chows": (6, ("Mixed Shifted Chows", "三色三步高", "三色三步高")),
    "all_types": (6, ("All Types", "五门齐", "五門齊")),
    "melded_hand": (6, ("Melded Hand", "全求人", "全求人")),
    "two_concealed_kongs": (6, ("Two Concealed Kongs", "双暗杠", "雙暗槓")),
    "two_dragon_pungs": (6, ("Two Dragon Pungs", "双箭刻", "雙箭刻")),
    # 4
    "outside_hand": (4, ("Outside Hand", "全带幺", "全帶幺")),
    "fully_concealed_hand": (4, ("Fully Concealed Hand", "不求人", "不求人")),
    "two_melded_kongs": (4, ("Two Melded Kongs", "双明杠", "雙明槓")),
    "last_tile": (4, ("Last Tile", "和绝张", "和絕張")),
    # 2
    "dragon_pung": (2, ("Dragon Pung", "箭刻", "箭刻")),
    "prevalent_wind": (2, ("Prevalent Wind", "圈风刻", "圈風刻")),
    "seat_wind": (2, ("Seat Wind", "门风刻", "門風刻")),
    "concealed_hand": (2, ("Concealed Hand", "门前清", "門前清")),
    "all_chows": (2, ("All Chows", "平和", "平和")),
    "tile_hog": (2, ("Tile Hog", "四归一", "四歸一")),
    "double_pung": (2, ("Double Pung", "双同刻", "雙同刻")),
    "two_concealed_pungs": (2, ("Two Concealed Pungs", "双暗刻", "雙暗刻")),
    "concealed_kong": (2, ("Concealed Kong", "暗杠", "暗槓")),
    "all_simples": (2, ("All Simples", "断幺", "斷幺")),
    # 1
    "pure_double_chow": (1, ("Pure Double Chow", "一般高", "一般高")),
    "mixed_double_chow": (1, ("Mixed Double Chow", "喜相逢", "喜相逢")),
    "short_straight": (1, ("Short Straight", "连六", "連六")),
    "two_terminal_chows": (1, ("Two Terminal Chows", "老少副", "老少副")),
    "pung_of_terminals_or_honors": (1, ("Pung of Terminals or Honors", "幺九刻", "幺九刻")),
    "melded_kong": (1, ("Melded Kong", "明杠", "明槓")),
    "one_voided_suit": (1, ("One Voided Suit", "缺一门", "缺一門")),
    "no_honors": (1, ("No Honors", "无字", "無字")),
    "edge_wait": (1, ("Edge Wait", "边张", "邊張")),
    "closed_wait": (1, ("Closed Wait", "嵌张", "嵌張")),
    "single_wait": (1, ("Single Wait", "单钓将", "單釣將")),
    "self_drawn": (1, ("Self-Drawn", "自摸", "自摸")),
    "flower_tiles": (1, ("Flower Tiles", "花牌", "花牌")),
}
# One concealed and one melded kong together: no element of the 1998 table, which counts 暗杠 2
# and 明杠 1; the common competition reading (and PyMahjongGB's) counts them as one, 5 points.
MIXED_KONGS = "concealed_and_melded_kong"
EXTRA: dict[str, tuple[int, Term]] = {
    MIXED_KONGS: (5, ("Concealed and Melded Kong", "明暗杠", "明暗槓")),
}
FLOWERS = "flower_tiles"
POINTS = {key: points for key, (points, _) in {**ELEMENTS, **EXTRA}.items()}
NAMES = {key: names for key, (_, names) in {**ELEMENTS, **EXTRA}.items()}
# the table's order, highest first, 明暗杠 (5) among the elements by its points
_BELOW = next(i for i, (points, _) in enumerate(ELEMENTS.values()) if points < EXTRA[MIXED_KONGS][0])
ORDER = {key: i for i, key in enumerate([*list(ELEMENTS)[:_BELOW], *EXTRA,
                                         *list(ELEMENTS)[_BELOW:]])}

@dataclass(frozen=True)
class Element:
    key: str
    count: int = 1

    @property
    def points(self) -> int:
        return POINTS[self.key] * self.count

    @property
    def term(self) -> str:
        """Its term key as lines carry it: ``"pure_double_chow:2"`` for two."""
        return f"{self.key}:{self.count}" if self.count > 1 else self.key


@dataclass(frozen=True)
class Count:
    """What a winning hand counts: its elements, highest first, flowers last."""

    elements: tuple[Element, ...]

    @property
    def total(self) -> int:
        return sum(e.points for e in self.elements)

    @property
    def flowers(self) -> int:
        return sum(e.count for e in self.elements if e.key == FLOWERS)

    @property
    def terms(self) -> tuple[str, ...]:
        return tuple(e.term for e in self.elements)


def ordered(elements: list[Element]) -> Count:
    """The elements as a count, in the table's order."""
    return Count(tuple(sorted(elements, key=lambda e: ORDER[e.key])))



def at(path: str, field: str) -> str:
    """`field` inside the object at `path` ("" for the top)."""
    return f"{path}.{field}" if path else field


def entered(keys: list[str], flowers: int, winner: str) -> Count:
    """The elements a player named (``"key"`` or ``"key:n"``) and the flowers, as a count."""
    out: list[Element] = []
    seen: set[str] = set()
    for i, text in enumerate(keys):
        key, colon, times = text.partition(":")
        where = at(winner, f"elements[{i}]")
        if key == FLOWERS:
            raise ScoringError(where, "flowers are counted by the winner's flowers field, not "
                               "among the elements")
        if key not in POINTS:
            raise ScoringError(where, "unknown element {element}", element=repr(key))
        n = int(times) if colon and times.isascii() and times.isdigit() else 0 if colon else 1
        if not 1 <= n <= 4:
            raise ScoringError(where, "an element is counted 1 to 4 times, written like "
                               "\"pure_double_chow:2\" (got {element})", element=repr(text))
        if key in seen:
            raise ScoringError(where, "{element} is named twice; write it once with its count, "
                               "like \"{element}:2\"", element=key)
        seen.add(key)
        out.append(Element(key, n))
    if flowers:
        out.append(Element(FLOWERS, flowers))
    return ordered(out)
