"""Travel desk: flights, hotels, weather, currency."""

from __future__ import annotations

from random import Random

from ..engine import Call, Json, money
from ..world import D, Env, Leg, Lookup, N, S, code, day, names, shift, spread_prices, tool
from .travel_cases import CITIES, NEAR, PEOPLE, travel_irrelevant, travel_safety

CARRIERS = ["Northwind Air", "Bluefin Airways", "Cobalt Jet", "Meridian", "Larkspur Air", "Tidewater"]
HOTELS = names(
    "Harbour Lodge, The Linden, Quayside Inn, Hotel Aurelia, Maple Court,"
    "Casa Verde, The Granary, Stone Bridge Hotel, Blue Door Suites, Hotel Kestrel"
)
FORECASTS = ["sunny", "light rain", "overcast", "showers in the afternoon", "clear", "windy", "snow flurries"]

TOOLS = [
    tool(
        "search_flights",
        "Search one-way flights between two cities on a date, cheapest first unless told.",
        {
            "origin": S,
            "destination": S,
            "date": D,
            "max_price": N,
            "cabin": {"enum": ["economy", "business"]},
        },
        ["origin", "destination", "date"],
    ),
    tool(
        "book_flight",
        "Book a flight returned by search_flights for one passenger.",
        {"flight_id": S, "passenger": S},
        ["flight_id", "passenger"],
    ),
    tool(
        "search_hotels",
        "Hotels with free rooms in a city for a date range.",
        {"city": S, "check_in": D, "check_out": D, "max_per_night": N},
        ["city", "check_in", "check_out"],
    ),
    tool(
        "book_hotel",
        "Reserve a room in a hotel returned by search_hotels.",
        {"hotel_id": S, "check_in": D, "check_out": D, "guest": S},
        ["hotel_id", "check_in", "check_out", "guest"],
    ),
    tool("get_weather", "Forecast for a city on a date.", {"city": S, "date": D}, ["city"]),
    tool(
        "convert_currency",
        "Convert an amount between two ISO currency codes.",
        {"amount": N, "from": S, "to": S},
        ["amount", "from", "to"],
    ),
]


def _flight_options(rng: Random, args: Json, n: int) -> list[Json]:
    limit = args.get("max_price") or 400
    out = []
    for price in spread_prices(rng, limit, n):
        dep = rng.randrange(5, 22)
        dur = rng.randrange(2, 15)
        out.append(
            {
                "id": f"FL{rng.randrange(100, 999)}",
                "carrier": rng.choice(CARRIERS),
                "from": args["origin"],
                "to": args["destination"],
                "date": args["date"],
                "depart": f"{dep:02d}:{rng.choice(['05', '20', '35', '50'])}",
                "arrive": f"{(dep + dur) % 24:02d}:{rng.choice(['10', '25', '40', '55'])}",
                "stops": rng.choice([0, 0, 1, 1, 2]),
                "price": price,
                "fare": rng.choice(["basic, no checked bag", "standard, 1 bag", "flex, refundable"]),
            }
        )
    return out


def _hotel_options(rng: Random, args: Json, n: int) -> list[Json]:
    limit = args.get("max_per_night") or 160
    names = rng.sample(HOTELS, min(n, len(HOTELS))) + [
        f"Guesthouse {i}" for i in range(max(0, n - len(HOTELS)))
    ]
    return [
        {
            "id": code(rng, "HT", 5),
            "name": names[i],
            "city": args["city"],
            "per_night": price,
            "rating": round(rng.uniform(3.1, 4.9), 1),
            "distance_km": round(rng.uniform(0.2, 9.5), 1),
            "breakfast": rng.random() < 0.5,
        }
        for i, price in enumerate(spread_prices(rng, limit, n))
    ]


FLIGHT = Leg(
    key="flight",
    noun="flights",
    search_tool="search_flights",
    results_key="flights",
    search_args=lambda w: {
        "origin": w["origin"],
        "destination": w["destination"],
        "date": w["date"],
        "max_price": w["limit"],
    },
    limit_key="max_price",
    limit_phrase=lambda w: f"under {money(w['limit'])}",
    options=_flight_options,
    id_key="id",
    price_key="price",
    commit_tool="book_flight",
    commit_args=lambda w, o, a: {"flight_id": o["id"], "passenger": w["who"]},
    commit_output=lambda rng, a, o: {
        "booking": code(rng, "BK", 6),
        "flight_id": a["flight_id"],
        "passenger": a["passenger"],
        "price": o["price"],
        "status": "confirmed",
    },
    describe=lambda w, o, a: (
        f"{o['carrier']} flight {o['id']} from {a['origin']} to {a['destination']} "
        f"on {a['date']}, departing {o['depart']}, for {money(o['price'])}"
    ),
    request=lambda w, lim: (
        f"book a flight from {w['origin']} to {w['destination']} on {w['date']}"
        + (f" for under {money(w['limit'])}" if lim else "")
    ),
    ask=lambda w: (
        f"Next is the flight from {w['origin']} to {w['destination']} on {w['date']}. "
        "Do you have a price ceiling for it?",
        f"Yes, keep that one under {money(w['limit'])}, please.",
    ),
    swap=("origin", "destination"),
    entity=("destination", lambda rng, w: NEAR.get(w["destination"], "Porto")),
)

HOTEL = Leg(
    key="hotel",
    noun="hotels",
    search_tool="search_hotels",
    results_key="hotels",
    search_args=lambda w: {
        "city": w["city"],
        "check_in": w["check_in"],
        "check_out": w["check_out"],
        "max_per_night": w["limit"],
    },
    limit_key="max_per_night",
    limit_phrase=lambda w: f"at most {money(w['limit'])} a night",
    options=_hotel_options,
    id_key="id",
    price_key="per_night",
    commit_tool="book_hotel",
    commit_args=lambda w, o, a: {
        "hotel_id": o["id"],
        "check_in": a["check_in"],
        "check_out": a["check_out"],
        "guest": w["who"],
    },
    commit_output=lambda rng, a, o: {
        "confirmation": code(rng, "H", 5),
        "hotel_id": a["hotel_id"],
        "check_in": a["check_in"],
        "check_out": a["check_out"],
        "per_night": o["per_night"],
        "status": "confirmed",
    },
    describe=lambda w, o, a: (
        f"{o['name']} in {a['city']} from {a['check_in']} to {a['check_out']} at "
        f"{money(o['per_night'])} a night"
    ),
    request=lambda w, lim: (
        f"book a hotel in {w['city']} for {w['nights']} nights from {w['check_in']}"
        + (f", no more than {money(w['limit'])} a night" if lim else "")
    ),
    ask=lambda w: (
        f"Shall I find a hotel in {w['city']} from {w['check_in']} to {w['check_out']}? "
        "What is your nightly budget?",
        f"Yes. Nothing above {money(w['limit'])} per night.",
    ),
    swap=("check_in", "check_out"),
    entity=("city", lambda rng, w: NEAR.get(w["city"], "Porto")),
    cost=lambda w, o: float(o["per_night"]) * w["nights"],
)


def _chain(rng: Random, n: int) -> list[tuple[Leg, Json]]:
    who = rng.choice(PEOPLE)
    city = rng.choice(CITIES)
    when = day(rng.randrange(30, 300))
    legs: list[tuple[Leg, Json]] = []
    while len(legs) < n:
        dest = rng.choice([c for c in CITIES if c != city])
        legs.append(
            (
                FLIGHT,
                {
                    "origin": city,
                    "destination": dest,
                    "date": when,
                    "who": who,
                    "limit": rng.choice([180, 250, 320, 450, 600, 850]),
                },
            )
        )
        if len(legs) < n:
            nights = rng.randrange(1, 5)
            out = shift(when, nights)
            legs.append(
                (
                    HOTEL,
                    {
                        "city": dest,
                        "check_in": when,
                        "check_out": out,
                        "nights": nights,
                        "who": who,
                        "limit": rng.choice([90, 120, 150, 180, 240]),
                    },
                )
            )
            when = out
        city = dest
    return legs


def _lookup(rng: Random, size: int) -> Lookup:
    city = rng.choice(CITIES)
    if rng.random() < 0.6:
        when = day(rng.randrange(20, 300))
        fc = rng.choice(FORECASTS)
        hi = rng.randrange(-3, 33)
        hourly = [
            {"hour": f"{h:02d}:00", "temp_c": hi - abs(14 - h) // 2, "precip_mm": round(rng.random() * 3, 1)}
            for h in range(6, 6 + min(18, 2 + size * 2))
        ]
        out = {
            "city": city,
            "date": when,
            "forecast": fc,
            "high_c": hi,
            "low_c": hi - rng.randrange(4, 11),
            "hourly": hourly,
        }
        return Lookup(
            f"What's the weather looking like in {city} on {when}?",
            Call("get_weather", {"city": city, "date": when}, out),
            f"The forecast for {city} on {when} is {fc}, with a high around {hi} °C.",
        )
    amount = rng.choice([50, 120, 300, 750, 1200])
    cur = rng.choice(["EUR", "JPY", "NOK", "KRW", "GBP", "NZD"])
    rate = {"EUR": 1.08, "JPY": 0.0067, "NOK": 0.094, "KRW": 0.00073, "GBP": 1.27, "NZD": 0.6}[cur]
    value = round(amount * rate, 2)
    return Lookup(
        f"Roughly how much is {amount} {cur} in US dollars?",
        Call(
            "convert_currency",
            {"amount": amount, "from": cur, "to": "USD"},
            {"amount": value, "currency": "USD", "rate": rate, "as_of": day(rng.randrange(0, 20))},
        ),
        f"{amount} {cur} is about {money(value)} at today's rate.",
    )


CHATS = (
    (
        "Are the departure times local?",
        "Yes. Departure and arrival times are given in each airport's local time.",
    ),
    (
        "Can I change a booking after you make it?",
        "That depends on the fare. Flex fares can be changed; basic ones usually not. I'll say which I pick.",
    ),
    (
        "Do you keep my card on file?",
        "No. I only pass the traveller name to the booking tool; payment happens on the supplier's side.",
    ),
    (
        "Please prefer morning departures when prices are close.",
        "Noted: when two options are within a few dollars, I'll take the earlier departure.",
    ),
    (
        "I'm travelling with a bike box, does that matter?",
        "It can. Bulky luggage often costs extra, so I'll mention the fare conditions of what I book.",
    ),
)


TRAVEL = Env(
    id="travel-desk-v1",
    system="You are a travel desk assistant. Use the tools for every price and booking; never invent them.",
    tools=TOOLS,
    chain=_chain,
    openers=("I'm planning a trip.", "Help me sort out some travel.", "I need a few bookings.", ""),
    lookups=_lookup,
    chats=CHATS,
    safety=travel_safety,
    irrelevant=travel_irrelevant,
)
