"""The public schema of the benchmark data sets: columns, categories, ranges.

Everything here comes from the data sets' documentation (``adult.names`` of UCI
Adult, Kohavi & Becker 1996; the UCI data dictionary of Bank Marketing, Moro,
Cortez & Rita 2014, in the one-hot coding of Lee & Kifer, KDD 2018), never from
the data: the loaders of :mod:`sklearn_dpgd.datasets` check the files against it,
and the private recipes (:mod:`sklearn_dpgd.datasets._recipes`) use it without spending
budget.
"""

_ADULT_NUMERIC = [
    "age",
    "fnlwgt",
    "education-num",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
]

# Categories as listed in ``adult.names``. They are fixed (not read from the file) so
# that the train and test splits get identical ``category`` dtypes.
_ADULT_CATEGORIES = {
    "workclass": [
        "Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
        "State-gov", "Without-pay", "Never-worked",
    ],
    "education": [
        "Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm",
        "Assoc-voc", "9th", "7th-8th", "12th", "Masters", "1st-4th", "10th",
        "Doctorate", "5th-6th", "Preschool",
    ],
    "marital-status": [
        "Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed",
        "Married-spouse-absent", "Married-AF-spouse",
    ],
    "occupation": [
        "Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
        "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
        "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
        "Armed-Forces",
    ],
    "relationship": [
        "Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried",
    ],
    "race": ["White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"],
    "sex": ["Female", "Male"],
    "native-country": [
        "United-States", "Cambodia", "England", "Puerto-Rico", "Canada", "Germany",
        "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece", "South", "China",
        "Cuba", "Iran", "Honduras", "Philippines", "Italy", "Poland", "Jamaica",
        "Vietnam", "Mexico", "Portugal", "Ireland", "France", "Dominican-Republic",
        "Laos", "Ecuador", "Taiwan", "Haiti", "Columbia", "Hungary", "Guatemala",
        "Nicaragua", "Scotland", "Thailand", "Yugoslavia", "El-Salvador",
        "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands",
    ],
}  # fmt: skip

_ADULT_COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
]

_ADULT_LABELS = {"<=50K": 0, ">50K": 1}

# Public ranges of Adult's numeric columns, from adult.names and the coding of the
# Current Population Survey, never from the data: age > 16 (the extraction rule of
# adult.names), at most 100; education-num codes the 16 education levels;
# capital-gain and capital-loss are >= 0, top-coded at 99999; hours-per-week > 0
# (the extraction rule), top-coded at 99; fnlwgt, a survey weight with no
# published range, within [0, 1.5e6]. private_pipeline searches the DP bounds
# inside them. Each range starts one unit below the smallest possible value: the
# exponential mechanism weighs an interval by its width, and a floor shared by
# many rows (95% of capital-loss is 0) leaves no positive-width interval at the
# floor when the range starts there, which pushes the lower bound far up.
_ADULT_RANGES = {
    "age": (16, 100),
    "fnlwgt": (-1, 1.5e6),
    "education-num": (0, 16),
    "capital-gain": (-1, 99999),
    "capital-loss": (-1, 99999),
    "hours-per-week": (0, 99),
}

# Bank (the one-hot file of Lee & Kifer 2018): the columns that are numeric
# attributes of the UCI data dictionary (Moro et al. 2014), with public ranges
# from their meaning, never from the data (starting one unit below the smallest
# possible value, as for Adult); every other column is a 0/1 indicator of the
# one-hot coding (bounds (0, 1) by construction). The dictionary documents no
# ranges: the campaigns ran from May 2008 to November 2010 (about 900 days),
# which bounds the day counts.
_BANK_RANGES = {
    "x0": (17, 100),  # age in years (clients of a bank deposit are adults)
    "x18": (-1e5, 1e6),  # average yearly balance in euros (may be negative)
    "x23": (-1, 1000),  # day count of the last contact date (within the campaigns)
    "x24": (-1, 7200),  # duration of the last call in seconds (at most two hours)
    "x25": (0, 100),  # contacts during this campaign (at least one)
    "x27": (-1, 1000),  # days since the previous campaign's contact (0: none)
    "x28": (-1, 300),  # contacts before this campaign
}
_BANK_N_FEATURES = 32

# The same ranges as the data dictionaries give them (the smallest possible value
# first): DPTableVectorizer widens its quantile candidates itself, and its
# heavy-tail rule reads the true lower end. The balance (x18) has no smallest
# possible value: its range starts at its declared floor, unshifted.
_ADULT_BOUNDS = {c: (lo + 1, hi) for c, (lo, hi) in _ADULT_RANGES.items()}
_BANK_BOUNDS = {
    c: (lo if c == "x18" else lo + 1, hi) for c, (lo, hi) in _BANK_RANGES.items()
}

# Breast cancer (Wisconsin Diagnostic; Street, Wolberg & Mangasarian 1993): the 10
# measurements of a cell nucleus, each as the mean, standard error and worst value
# over the nuclei of an image (columns 0-9, 10-19, 20-29 of scikit-learn's
# load_breast_cancer). Upper ends are round numbers from what each measurement is
# (pixels of a digitised image, 8-bit grey levels, ratios), one range for the
# mean, error and worst columns; every value is >= 0. They were set knowing the
# data dictionary's min/max table (computed on the whole data set), which they
# contain with a margin of 2 to 30; the recipe's accuracy barely moves when they
# are 4 times wider (benchmarks/bench_recipes.py).
_BREAST_CANCER_UPPER = (
    50.0,  # radius: mean distance from the centre to the boundary, in pixels
    100.0,  # texture: standard deviation of 8-bit grey levels (at most 127.5)
    400.0,  # perimeter, in pixels (4 radii of 50: a circle needs 2 pi)
    8000.0,  # area, in square pixels (pi 50^2 ~ 7854)
    0.5,  # smoothness: local variation of radius lengths, relative
    2.0,  # compactness: perimeter^2 / area - 1, scaled
    2.0,  # concavity: severity of concave portions of the contour
    1.0,  # concave points: share of the contour's points in concavities
    1.0,  # symmetry: relative difference of lengths across the major axis
    0.5,  # fractal dimension: coastline approximation - 1
)
_BREAST_CANCER_N_FEATURES = 30
