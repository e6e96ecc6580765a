"""UI strings: Russian by default, English selectable.

Every text the audience or the host sees lives here, one dict per language,
keyed by a short English name (``"right"``, ``"time_up"``, ``"round"``).
Effects carry keys, not text (:class:`~controller.effects.Notice`,
:class:`~controller.effects.Flash`); the display turns them into words with
:func:`t`.  Keeping the words in one place lets a test check that every key
exists in every language and that the bundled fonts can draw every
character (``tests/test_i18n.py``, ``tests/test_fonts.py``).

Placeholders use :meth:`str.format` syntax: ``t("round", n=2)`` gives
«Раунд 2».  Counted nouns use :func:`tn`, which picks the Russian plural form
(«1 очко», «2 очка», «5 очков») from keys ending in ``.one``, ``.few`` and
``.many``.

Adding a string: add the key to *both* dicts below.
"""

from __future__ import annotations

import string
from typing import Any, Mapping

DEFAULT_LANG = "ru"
LANGUAGES = ("ru", "en")

MINUS = "\u2212"
"""The typographic minus sign (−), used for negative scores instead of ``-``."""

STRINGS: dict[str, dict[str, str]] = {
    "ru": {
        # --- verdicts and flashes -------------------------------------------------
        "right": "Верно",
        "wrong": "Неверно",
        "time_up": "Время!",
        "false_start": "Фальстарт",
        "early": "Рано",
        "withdrawn": "Вопрос снят",
        "no_answer": "Нет ответа",
        "answering": "Отвечает",
        "answering_name": "Отвечает: {name}",
        "answer_order": "{n}-й ответ",
        "blocked": "Блок",
        "blocked_for": "{button}: блок на {s} с",
        # --- game structure ---------------------------------------------------------
        "game": "Игра",
        "fight": "Бой",
        "fight_n": "Бой {n}",
        "round": "Раунд",
        "round_n": "Раунд {n}",
        "round_n_of": "Раунд {n} из {total}",
        "question": "Вопрос",
        "question_n": "Вопрос № {n}",
        "theme": "Тема",
        "theme_name": "Тема: «{name}»",
        "nominal": "Номинал",
        "nominal_n": "Номинал {n}",
        "place": "Место",
        "place_n": "место {n}",
        "points": "Очки",
        "points_n.one": "{n} очко",
        "points_n.few": "{n} очка",
        "points_n.many": "{n} очков",
        "right_points": "За верные",
        "total": "Итого",
        "score": "Счёт",
        "standings": "Турнирная таблица",
        "paused": "Пауза",
        "resume": "Продолжить",
        "tour_n": "Тур {n}",
        "extra_fight": "Дополнительный бой",
        "tie": "Ничья",
        "winner": "Победитель",
        "carry_over": "Вопрос стоит {n}",
        "shared_place": "{first}–{last}",
        # --- Эрудит-квартет fight types and captain timers -------------------------
        "light": "Светлый бой",
        "half-dark": "Полутёмный бой",
        "dark": "Тёмный бой",
        "captain_timer": "Время капитана",
        "captain_assigns": "Капитан расставляет игроков",
        "captain_picks": "Капитан выбирает игрока",
        "skips_round": "{team} пропускает раунд",
        "disqualified": "Дисквалификация",
        "disqualified_fight": "Дисквалифицирован до конца боя",
        "disqualified_tournament": "Дисквалифицирован до конца турнира",
        # --- people and things ------------------------------------------------------
        "team": "Команда",
        "teams": "Команды",
        "team_n": "Команда {n}",
        "player": "Игрок",
        "players": "Игроки",
        "player_n": "Игрок {n}",
        "captain": "Капитан",
        "table": "Стол",
        "table_n": "Стол № {n}",
        "host": "Ведущий",
        "button": "Кнопка",
        "button_name": "Кнопка {button}",
        # --- timers -----------------------------------------------------------------
        "timer": "⏱ {time}",
        "seconds_left": "Осталось {s} с",
        "think_time": "Время на размышление",
        "answer_time": "Время на ответ",
        "start_signal": "▶ Старт",
        "start_pending": "«Время!»: ждём сигнала старта",
        "ten_seconds": "Осталось 10 секунд",
        # --- modes --------------------------------------------------------------------
        "mode_erudite": "Эрудит-квартет",
        "mode_jeopardy": "Своя игра",
        "mode_brain_ring": "Брейн-ринг",
        "mode_chgk": "Что? Где? Когда?",
        "mode_mafia": "Мафия",
        "mode_programme": "Программа вечера",
        # --- Что? Где? Когда? ---------------------------------------------------------
        "discussion": "Обсуждение",
        "hand_in": "Сдайте ответы",
        "blitz": "Блиц",
        "shootout": "Перестрелка",
        "appeal": "Апелляция",
        "appeal_accepted": "Апелляция принята",
        "right_answers": "Верных ответов",
        # --- «Мафия» ------------------------------------------------------------------
        "speech": "Речь",
        "defence": "Оправдательная речь",
        "last_word": "Последнее слово",
        "foul": "Фол",
        "fouls_n": "Фолы: {n}",
        "silenced": "Без речи",
        "removed": "Удалён",
        "extra_points": "Доп. баллы",
        # --- symbols used alone -------------------------------------------------------
        "mark_right": "✓",
        "mark_wrong": "✗",
        "mark_best": "★",
        "separator": " · ",
        # --- host help overlay --------------------------------------------------------
        "help_title": "Клавиши ведущего",
        "help_hint": "H — подсказка по клавишам",
        "help_team_keys": "Кнопки игроков, по порядку",
        "key_space": "Пробел",
        "key_enter": "Enter",
        "key_backspace": "Backspace",
        "key_escape": "Esc",
        "key_tab": "Tab",
        "key_delete": "Delete",
        "key_arrows": "Стрелки",
        "key_plus": "+",
        "key_minus": "−",
        "action_question": "Следующий вопрос",
        "action_arm": "Конец чтения, старт",
        "action_right": "Ответ верный",
        "action_wrong": "Ответ неверный",
        "action_withdraw": "Снять вопрос",
        "action_pause": "Пауза / продолжить",
        "action_undo": "Отменить последнее",
        "action_next_round": "Следующий раунд",
        "action_standings": "Показать таблицу",
        "action_mute": "Звук вкл./выкл.",
        "action_help": "Подсказка по клавишам",
        "action_quit": "Выход",
        # --- host notices -------------------------------------------------------------
        "early_press": "Рано: {team}",
        "already_answered": "{button} уже отвечал",
        "refused": "Недоступно сейчас: {action}",
        "button_stuck": "Кнопка {button} залипла",
        "sound_off": "Звук выключен",
        "sound_on": "Звук включён",
        # --- engine notices to the host (keys named as in the engine's Notice) -------
        "question_open": "Сначала завершите или снимите текущий вопрос",
        "no_answer_holder": "Сейчас никто не отвечает",
        "no_question": "Вопрос не объявлен",
        "countdown_running": "Отсчёт уже идёт",
        "nothing_to_undo": "Нечего отменять",
        "game_over": "Игра окончена",
        "skip_not_allowed.one": "{team}: пропуск раунда не положен ({players} игрок)",
        "skip_not_allowed.few": "{team}: пропуск раунда не положен ({players} игрока)",
        "skip_not_allowed.many": "{team}: пропуск раунда не положен ({players} игроков)",
        "no_tie": "Равенства нет — дополнительный бой не нужен",
        "team_disqualified": "Дисквалификация: {team}",
        "unknown_button": "Неизвестная кнопка {button}",
        "confirm_quit": "Нажмите ещё раз, чтобы выйти",
        "keypad_away": "Клавиатура ведущего отключена — работает клавиатура компьютера",
        "keypad_back": "Клавиатура ведущего снова подключена",
        "resumed.one": "Игра продолжена после перезапуска ({n} событие из журнала)",
        "resumed.few": "Игра продолжена после перезапуска ({n} события из журнала)",
        "resumed.many": "Игра продолжена после перезапуска ({n} событий из журнала)",
        "resumed_journal.one": "Незавершённая игра продолжена: {n} событие из журнала, часы на {s} с.",
        "resumed_journal.few": "Незавершённая игра продолжена: {n} события из журнала, часы на {s} с.",
        "resumed_journal.many": "Незавершённая игра продолжена: {n} событий из журнала, часы на {s} с.",
        "results_loaded.one": "Ответы жюри загружены: {n} строка ({path})",
        "results_loaded.few": "Ответы жюри загружены: {n} строки ({path})",
        "results_loaded.many": "Ответы жюри загружены: {n} строк ({path})",
        # --- the journal at start-up (buzzer run) ------------------------------------
        "events_n.one": "{n} событие",
        "events_n.few": "{n} события",
        "events_n.many": "{n} событий",
        "records_n.one": "{n} запись",
        "records_n.few": "{n} записи",
        "records_n.many": "{n} записей",
        "journal.damaged": "Запись {line} из {lines} в журнале повреждена: игра продолжена по записям до неё "
                           "({events}); записи {line}–{lines} ({rest}) не воспроизведены; весь исходный журнал "
                           "сохранён в {path}",
        "journal.damaged_archived": "Запись {line} из {lines} в журнале повреждена; весь журнал перенесён "
                                    "в архив: {path}",
        "journal.unreadable": "{problem}; файл сохранён в {path}, начинается новая игра",
        "journal.archived": "Журнал предыдущей игры перенесён в архив: {path}",
        "journal.unfinished": "В журнале незаконченная игра «{mode}» (начата {started}, конфиг {config}, "
                              "{events}).",
        "journal.resume_q": "Продолжить её?",
        "journal.other_game": "В журнале незаконченная игра «{mode}» (начата {started}, конфиг {config}, "
                              "{events}); запрошена игра «{new_mode}» ({new_config}). Незаконченная игра будет "
                              "перенесена в архив {archive}, не удалена.",
        "journal.start_new_q": "Начать новую игру?",
        "journal.kept": "Ничего не изменено: незаконченная игра «{mode}» осталась в {path}; buzzer run --resume "
                        "продолжит её, buzzer run --new перенесёт её в архив и начнёт новую.",
        "journal.other_game_no_terminal": "в {path} незаконченная игра «{mode}» (начата {started}, конфиг "
                                          "{config}, {events}), а не «{new_mode}» ({new_config}); ничего не "
                                          "изменено: добавьте --new, чтобы перенести её в архив и начать игру "
                                          "«{new_mode}», или --resume, чтобы продолжить её",
        "journal.resumed_other": "Продолжена незаконченная игра «{mode}» (конфиг {config}), как просит --resume; "
                                 "{new_config} («{new_mode}») не использован",
        "journal.damaged_found": "Запись {line} из {lines} в журнале повреждена: продолжить можно только по "
                                 "записям до неё ({events}); весь файл сохранится в архиве.",
        "journal.config_builtin": "встроенные настройки",
        "journal.config_unrecorded": "не записан",
        "ask.default_yes": "[Д/н]",
        "ask.default_no": "[д/Н]",
        "chgk.no_such_team": "Нет команды с номером {number}",
        "chgk.marked_right": "{team}: ответ засчитан ✓",
        "chgk.marked_wrong": "{team}: ответ не засчитан ✗",
        "already_armed": "Кнопки уже включены",
        "clock_running": "Отсчёт уже идёт",
        "no_more_questions": "Вопросы закончились",
        "appeal_not_allowed": "Апелляции на вопросы перестрелки не принимаются",
        "shootout_running": "Идёт перестрелка",
        "confirm_new_game": "Нажмите ещё раз: новая игра (старая сохранится в архиве)",
        "not_in_this_mode": "{label} — не в этой игре ({action})",
        "captain_time_up": "Время капитана истекло",
        "undo": "Отменено",
        # --- backend status -----------------------------------------------------------
        "backend": "Кнопки",
        "backend_connected": "Подключено",
        "backend_disconnected": "Нет связи",
        "backend_reconnecting": "Переподключение…",
        "backend_missing": "Не отвечают: {buttons}",
        "backend_keyboard": "Клавиатура",
        "backend_gpio": "GPIO",
        "backend_serial": "Последовательный порт",
        # --- audience screen (controller/display/scoreboard.py) -------------------------
        "press_order": "Порядок нажатий",
        "gap_s": "{s} с",
        "locked_out": "Ответ дан",
        "skipped": "Пропуск раунда",
        "not_in_tiebreak": "Не в доп. бою",
        "not_in_fight": "Не в бою",
        "stuck": "Залипла",
        "late": "Поздно",
        "undone": "Отменено",
        "day_n": "День {n}",
        "out": "Выбыл",
        "town_wins": "Победа мирных",
        "mafia_wins": "Победа мафии",
        "action_captain": "Время капитана",
        "action_start_clock": "«Время!»: старт отсчёта",
        "action_new_game": "Новая игра",
        "action_next_game": "Следующая игра программы",
        "action_end_game": "Закончить игру",
        "action_mark_right": "Набранная команда: верно",
        "action_mark_wrong": "Набранная команда: неверно",
        "action_clear": "Стереть набранный номер",
        "action_blitz": "Блиц: старт отсчёта",
        "action_shootout": "Перестрелка",
        "action_import_results": "Загрузить ответы жюри (CSV)",
        "action_team_number": "Номер команды",
        "action_seat_number": "Номер места",
        "action_start": "Речь: набранное место или следующее",
        "action_kind": "Оправдание / последнее слово",
        "action_stop": "Закончить речь",
        "action_foul": "Фол набранному месту",
        "action_disqualify": "Дисквалифицирующий фол",
        "action_next_role": "Роль набранного места",
        "action_out": "Выбыл по голосованию",
        "action_killed": "Убит ночью",
        "action_skip": "Пропустить речь",
        "action_day": "Новый день",
        "action_town_wins": "Победа мирных",
        "action_mafia_wins": "Победа мафии",
        "new_game_started": "Новая игра; прежняя сохранена: {path}",
        # --- keys the modes use in Notice/Flash effects --------------------------------
        "fight_over": "Бой окончен",
        "answers_closed": "Приём ответов закрыт",
        "answer_time_up": "Время ответа вышло",
        "mafia.foul": "Игрок {seat}: фол ({fouls})",
        "mafia.silenced": "Игрок {seat} лишён следующей речи",
        "mafia.silenced_skipped": "Игрок {seat} пропускает речь",
        "mafia.removed": "Игрок {seat} удалён",
        "mafia.winner": "Игра окончена",
        "mafia.undone": "Отменено",
        "mafia.kind": "Вид: {kind}",
        "mafia.enter_seat": "Сначала наберите номер места",
        "mafia.game_over": "Игра окончена",
        "mafia.everyone_spoke": "День {day}: все уже выступили",
        "mafia.no_speech": "Сейчас никто не говорит",
        "mafia.not_paused": "Речь не на паузе",
        "mafia.not_in_game": "Игрок {seat} не в игре",
        "mafia.not_silenced": "Игрок {seat} не лишён речи",
        "mafia.nothing_to_undo": "Нечего отменять",
        "mafia.no_last_word": "Игрок {seat} удалён: последнего слова нет",
        "mafia.role": "Игрок {seat}: {role}",
        "role_civilian": "мирный житель",
        "role_mafia": "мафия",
        "role_don": "дон",
        "role_commissar": "комиссар",
        "role_doctor": "доктор",
        # --- «Мафия» protocol, written when the judge ends the game -----------------------
        "protocol.saved": "Протокол сохранён: {path}",
        "protocol.incomplete": "Протокол не составлен: {problem}. Запись стола сохранена: {path}",
        "protocol.role": "не введена роль места {seat}",
        "protocol.role_twice": "роль «{role}» у нескольких игроков",
        "protocol.no_mafia": "среди ролей нет мафии",
        "protocol.no_town": "среди ролей нет мирных",
        "protocol.invalid": "ошибка в поле {field}",
        # --- ЧГК: the jury's answers from a CSV file --------------------------------------
        "chgk.csv_not_found": "{path}: файл не найден",
        "chgk.csv_not_utf8": "{path}: это не текст в UTF-8",
        "chgk.csv_is_folder": "{path}: это папка, а не файл",
        "chgk.csv_unreadable": "{path}: не читается ({problem})",
        "chgk.csv_fields": "{path}, строка {row}: нужны 3 поля (команда, вопрос, результат), а здесь {got}",
        "chgk.csv_no_team": "{path}, строка {row}: пустое название команды",
        "chgk.csv_unknown_team": "{path}, строка {row}: нет команды «{team}»",
        "chgk.csv_result": "{path}, строка {row}: непонятный результат «{value}» (1/0, +/−, да/нет)",
        "chgk.csv_question": "{path}, строка {row}: непонятный вопрос «{value}» (номер, например 17, или тур.вопрос, например 2.5)",
        "chgk.csv_no_question": "{path}, строка {row}: нет вопроса {value} (номера {range})",
        # --- the terminal, before and after the game ------------------------------------------
        "game_seed": "Зерно жеребьёвки при ничьей: {seed}",
        "no_display": "Дисплея нет: игра идёт в терминале с текстовым статусом (клавиши, набранные здесь, работают как кнопки).",
        "keypad_unavailable": "Клавиатура ведущего недоступна ({problem}); работает клавиатура компьютера",
        "keypad_needs_evdev": "нужен python-evdev, только Linux: pip install evdev",
        "buttons_never_changed": "Кнопки, ни разу не сработавшие за игру (проверьте подключение): {buttons}",
        "game_over_archived": "Игра окончена. Журнал перенесён в архив: {path}",
        "game_not_finished": "Игра не окончена: `{command} run` её продолжит.",
        "mafia.bad_seat.one": "Нет места № {seat}: за столом {seats} место",
        "mafia.bad_seat.few": "Нет места № {seat}: за столом {seats} места",
        "mafia.bad_seat.many": "Нет места № {seat}: за столом {seats} мест",
        # --- renaming a team (controller/loop.py, every mode's rename action) ------------
        "renamed": "{old} → {name}",
        "mafia.renamed": "Место {seat}: {name}",
        "rename_empty": "Имя не может быть пустым",
        "rename_too_long.one": "Имя длиннее {max} знака",
        "rename_too_long.few": "Имя длиннее {max} знаков",
        "rename_too_long.many": "Имя длиннее {max} знаков",
        "rename_taken": "Имя «{name}» уже занято",
        "rename_unchanged": "{team}: имя не изменилось",
        "rename_pick": "Переименовать: номер команды или её кнопка",
        "rename_pick_seat": "Переименовать: номер места",
        "rename_pick_hint": "Enter — выбрать · Esc — отмена",
        "rename_type": "Новое имя: {number} · {team}",
        "rename_hint": "Enter — сохранить · Backspace — стереть букву · Delete — всё · Esc — отмена",
        "rename_cancelled": "Переименование отменено",
        "rename_no_team": "Нет команды с номером {number}",
        "action_rename": "Переименовать команду (игрока)",
    },
    "en": {
        # --- verdicts and flashes -------------------------------------------------
        "right": "Right",
        "wrong": "Wrong",
        "time_up": "Time!",
        "false_start": "False start",
        "early": "Early",
        "withdrawn": "Question withdrawn",
        "no_answer": "No answer",
        "answering": "Answering",
        "answering_name": "Answering: {name}",
        "answer_order": "Answer {n}",
        "blocked": "Blocked",
        "blocked_for": "{button}: blocked for {s} s",
        # --- game structure ---------------------------------------------------------
        "game": "Game",
        "fight": "Fight",
        "fight_n": "Fight {n}",
        "round": "Round",
        "round_n": "Round {n}",
        "round_n_of": "Round {n} of {total}",
        "question": "Question",
        "question_n": "Question № {n}",
        "theme": "Theme",
        "theme_name": "Theme: “{name}”",
        "nominal": "Value",
        "nominal_n": "Value {n}",
        "place": "Place",
        "place_n": "place {n}",
        "points": "Points",
        "points_n.one": "{n} point",
        "points_n.few": "{n} points",
        "points_n.many": "{n} points",
        "right_points": "From right answers",
        "total": "Total",
        "score": "Score",
        "standings": "Standings",
        "paused": "Paused",
        "resume": "Resume",
        "tour_n": "Tour {n}",
        "extra_fight": "Extra fight",
        "tie": "Tie",
        "winner": "Winner",
        "carry_over": "Question worth {n}",
        "shared_place": "{first}–{last}",
        # --- Эрудит-квартет fight types and captain timers -------------------------
        "light": "Light fight",
        "half-dark": "Half-dark fight",
        "dark": "Dark fight",
        "captain_timer": "Captain's time",
        "captain_assigns": "Captain assigns players",
        "captain_picks": "Captain picks a player",
        "skips_round": "{team} skips this round",
        "disqualified": "Disqualified",
        "disqualified_fight": "Disqualified until the end of the fight",
        "disqualified_tournament": "Disqualified until the end of the tournament",
        # --- people and things ------------------------------------------------------
        "team": "Team",
        "teams": "Teams",
        "team_n": "Team {n}",
        "player": "Player",
        "players": "Players",
        "player_n": "Player {n}",
        "captain": "Captain",
        "table": "Table",
        "table_n": "Table № {n}",
        "host": "Host",
        "button": "Button",
        "button_name": "Button {button}",
        # --- timers -----------------------------------------------------------------
        "timer": "⏱ {time}",
        "seconds_left": "{s} s left",
        "think_time": "Thinking time",
        "answer_time": "Time to answer",
        "start_signal": "▶ Start",
        "start_pending": "“Time!”: waiting for the start signal",
        "ten_seconds": "10 seconds left",
        # --- modes --------------------------------------------------------------------
        "mode_erudite": "Erudite Quartet",
        "mode_jeopardy": "Own Game",
        "mode_brain_ring": "Brain Ring",
        "mode_chgk": "What? Where? When?",
        "mode_mafia": "Mafia",
        "mode_programme": "Programme",
        # --- Что? Где? Когда? ---------------------------------------------------------
        "discussion": "Discussion",
        "hand_in": "Hand in your answers",
        "blitz": "Blitz",
        "shootout": "Shoot-out",
        "appeal": "Appeal",
        "appeal_accepted": "Appeal accepted",
        "right_answers": "Right answers",
        # --- «Мафия» ------------------------------------------------------------------
        "speech": "Speech",
        "defence": "Defence speech",
        "last_word": "Last word",
        "foul": "Foul",
        "fouls_n": "Fouls: {n}",
        "silenced": "No speech",
        "removed": "Removed",
        "extra_points": "Extra points",
        # --- symbols used alone -------------------------------------------------------
        "mark_right": "✓",
        "mark_wrong": "✗",
        "mark_best": "★",
        "separator": " · ",
        # --- host help overlay --------------------------------------------------------
        "help_title": "Host keys",
        "help_hint": "H — key help",
        "help_team_keys": "Players' buttons, in order",
        "key_space": "Space",
        "key_enter": "Enter",
        "key_backspace": "Backspace",
        "key_escape": "Esc",
        "key_tab": "Tab",
        "key_delete": "Delete",
        "key_arrows": "Arrows",
        "key_plus": "+",
        "key_minus": "−",
        "action_question": "Next question",
        "action_arm": "End of reading, start",
        "action_right": "Answer is right",
        "action_wrong": "Answer is wrong",
        "action_withdraw": "Withdraw question",
        "action_pause": "Pause / resume",
        "action_undo": "Undo last",
        "action_next_round": "Next round",
        "action_standings": "Show standings",
        "action_mute": "Sound on/off",
        "action_help": "Key help",
        "action_quit": "Quit",
        # --- host notices -------------------------------------------------------------
        "early_press": "Early: {team}",
        "already_answered": "{button} has already answered",
        "refused": "Not available now: {action}",
        "button_stuck": "Button {button} is stuck",
        "sound_off": "Sound off",
        "sound_on": "Sound on",
        # --- engine notices to the host (keys named as in the engine's Notice) -------
        "question_open": "Finish or withdraw the current question first",
        "no_answer_holder": "Nobody is answering now",
        "no_question": "No question announced",
        "countdown_running": "The countdown is already running",
        "nothing_to_undo": "Nothing to undo",
        "game_over": "Game over",
        "skip_not_allowed.one": "{team}: may not skip a round ({players} player)",
        "skip_not_allowed.few": "{team}: may not skip a round ({players} players)",
        "skip_not_allowed.many": "{team}: may not skip a round ({players} players)",
        "no_tie": "No tie: no extra fight needed",
        "team_disqualified": "Disqualified: {team}",
        "unknown_button": "Unknown button {button}",
        "confirm_quit": "Press again to quit",
        "keypad_away": "Host keypad unplugged: the computer keyboard still works",
        "keypad_back": "Host keypad connected again",
        "resumed.one": "Game resumed after a restart ({n} event from the journal)",
        "resumed.few": "Game resumed after a restart ({n} events from the journal)",
        "resumed.many": "Game resumed after a restart ({n} events from the journal)",
        "resumed_journal.one": "Resumed the unfinished game: {n} event replayed, clock at {s} s.",
        "resumed_journal.few": "Resumed the unfinished game: {n} events replayed, clock at {s} s.",
        "resumed_journal.many": "Resumed the unfinished game: {n} events replayed, clock at {s} s.",
        "results_loaded.one": "Jury answers loaded: {n} row ({path})",
        "results_loaded.few": "Jury answers loaded: {n} rows ({path})",
        "results_loaded.many": "Jury answers loaded: {n} rows ({path})",
        # --- the journal at start-up (buzzer run) ------------------------------------
        "events_n.one": "{n} event",
        "events_n.few": "{n} events",
        "events_n.many": "{n} events",
        "records_n.one": "{n} record",
        "records_n.few": "{n} records",
        "records_n.many": "{n} records",
        "journal.damaged": "Journal record {line} of {lines} is damaged: the game resumed from the records "
                           "before it ({events}); records {line}–{lines} ({rest}) were not replayed; the whole "
                           "original journal is kept in {path}",
        "journal.damaged_archived": "Journal record {line} of {lines} is damaged; the whole journal is "
                                    "archived to {path}",
        "journal.unreadable": "{problem}; the file is kept in {path} and a new game starts",
        "journal.archived": "The previous game's journal was archived to {path}.",
        "journal.unfinished": "An unfinished {mode} game (started {started}, config {config}, {events}) is "
                              "in the journal.",
        "journal.resume_q": "Resume it?",
        "journal.other_game": "An unfinished {mode} game (started {started}, config {config}, {events}) is "
                              "in the journal; you asked for {new_mode} ({new_config}). The unfinished game will "
                              "be archived to {archive}, not deleted.",
        "journal.start_new_q": "Start the new game?",
        "journal.kept": "Nothing changed: the unfinished {mode} game stays in {path}; buzzer run --resume "
                        "resumes it, buzzer run --new archives it and starts a new one.",
        "journal.other_game_no_terminal": "{path} holds an unfinished {mode} game (started {started}, config "
                                          "{config}, {events}), not {new_mode} ({new_config}); nothing was "
                                          "changed: add --new to archive it and start {new_mode}, or --resume "
                                          "to resume it",
        "journal.resumed_other": "Resumed the unfinished {mode} game (config {config}) as --resume asks; "
                                 "{new_config} ({new_mode}) was not used",
        "journal.damaged_found": "Journal record {line} of {lines} is damaged: only the records before it "
                                 "({events}) can be resumed; the whole file will be kept in the archive.",
        "journal.config_builtin": "built-in defaults",
        "journal.config_unrecorded": "not recorded",
        "ask.default_yes": "[Y/n]",
        "ask.default_no": "[y/N]",
        "chgk.no_such_team": "No team number {number}",
        "chgk.marked_right": "{team}: right ✓",
        "chgk.marked_wrong": "{team}: wrong ✗",
        "already_armed": "The buttons are already armed",
        "clock_running": "The clock is already running",
        "no_more_questions": "No questions left",
        "appeal_not_allowed": "No appeals on shoot-out questions",
        "shootout_running": "A shoot-out is running",
        "confirm_new_game": "Press again: new game (the old one is archived)",
        "not_in_this_mode": "{label} — not in this game ({action})",
        "captain_time_up": "Captain's time is up",
        "undo": "Undone",
        # --- backend status -----------------------------------------------------------
        "backend": "Buttons",
        "backend_connected": "Connected",
        "backend_disconnected": "No connection",
        "backend_reconnecting": "Reconnecting…",
        "backend_missing": "Not responding: {buttons}",
        "backend_keyboard": "Keyboard",
        "backend_gpio": "GPIO",
        "backend_serial": "Serial port",
        # --- audience screen (controller/display/scoreboard.py) -------------------------
        "press_order": "Press order",
        "gap_s": "{s} s",
        "locked_out": "Answered",
        "skipped": "Skips round",
        "not_in_tiebreak": "Not in extra fight",
        "not_in_fight": "Not in this fight",
        "stuck": "Stuck",
        "late": "Late",
        "undone": "Undone",
        "day_n": "Day {n}",
        "out": "Out",
        "town_wins": "Town wins",
        "mafia_wins": "Mafia wins",
        "action_captain": "Captain's timer",
        "action_start_clock": "“Time!”: start the clock",
        "action_new_game": "New game",
        "action_next_game": "Next game of the programme",
        "action_end_game": "End the game",
        "action_mark_right": "Typed team: right",
        "action_mark_wrong": "Typed team: wrong",
        "action_clear": "Clear the typed number",
        "action_blitz": "Blitz: start the clock",
        "action_shootout": "Shoot-out",
        "action_import_results": "Load the jury's answers (CSV)",
        "action_team_number": "Team number",
        "action_seat_number": "Seat number",
        "action_start": "Speech: typed seat or the next",
        "action_kind": "Defence / last word",
        "action_stop": "End the speech",
        "action_foul": "Foul to the typed seat",
        "action_disqualify": "Disqualifying foul",
        "action_next_role": "Role of the typed seat",
        "action_out": "Voted out",
        "action_killed": "Killed at night",
        "action_skip": "Skip the speech",
        "action_day": "New day",
        "action_town_wins": "Town wins",
        "action_mafia_wins": "Mafia wins",
        "new_game_started": "New game; the previous one is saved: {path}",
        # --- keys the modes use in Notice/Flash effects --------------------------------
        "fight_over": "Fight over",
        "answers_closed": "Answers closed",
        "answer_time_up": "Answer time is up",
        "mafia.foul": "Player {seat}: foul ({fouls})",
        "mafia.silenced": "Player {seat} loses the next speech",
        "mafia.silenced_skipped": "Player {seat} skips the speech",
        "mafia.removed": "Player {seat} removed",
        "mafia.winner": "Game over",
        "mafia.undone": "Undone",
        "mafia.kind": "Kind: {kind}",
        "mafia.enter_seat": "Type a seat number first",
        "mafia.game_over": "The game is over",
        "mafia.everyone_spoke": "Day {day}: everyone has spoken",
        "mafia.no_speech": "Nobody is speaking now",
        "mafia.not_paused": "The speech is not paused",
        "mafia.not_in_game": "Player {seat} is not in the game",
        "mafia.not_silenced": "Player {seat} has not lost a speech",
        "mafia.nothing_to_undo": "Nothing to undo",
        "mafia.no_last_word": "Player {seat} was removed: no last word",
        "mafia.role": "Player {seat}: {role}",
        "role_civilian": "civilian",
        "role_mafia": "mafia",
        "role_don": "don",
        "role_commissar": "commissar",
        "role_doctor": "doctor",
        # --- «Мафия» protocol, written when the judge ends the game -----------------------
        "protocol.saved": "Protocol saved: {path}",
        "protocol.incomplete": "No protocol yet: {problem}. The table's record is saved: {path}",
        "protocol.role": "no role entered for seat {seat}",
        "protocol.role_twice": "more than one {role}",
        "protocol.no_mafia": "no mafia among the roles",
        "protocol.no_town": "no town player among the roles",
        "protocol.invalid": "a problem in field {field}",
        # --- ЧГК: the jury's answers from a CSV file --------------------------------------
        "chgk.csv_not_found": "{path}: file not found",
        "chgk.csv_not_utf8": "{path}: not UTF-8 text",
        "chgk.csv_is_folder": "{path}: is a folder, not a file",
        "chgk.csv_unreadable": "{path}: cannot be read ({problem})",
        "chgk.csv_fields": "{path}, row {row}: expected 3 fields (team, question, result), got {got}",
        "chgk.csv_no_team": "{path}, row {row}: empty team name",
        "chgk.csv_unknown_team": "{path}, row {row}: no team “{team}”",
        "chgk.csv_result": "{path}, row {row}: unknown result “{value}” (1/0, +/−, yes/no)",
        "chgk.csv_question": "{path}, row {row}: bad question “{value}” (a number such as 17, or tour.question such as 2.5)",
        "chgk.csv_no_question": "{path}, row {row}: no question {value} (numbers {range})",
        # --- the terminal, before and after the game ------------------------------------------
        "game_seed": "Game seed (tie draws): {seed}",
        "no_display": "No display found: running headless with a text status (keys typed here act as buttons).",
        "keypad_unavailable": "Host keypad unavailable ({problem}); the computer keyboard stays the host's input",
        "keypad_needs_evdev": "needs python-evdev, Linux only: pip install evdev",
        "buttons_never_changed": "Buttons that never changed state during the game (check their wiring): {buttons}",
        "game_over_archived": "Game over. Journal archived to {path}",
        "game_not_finished": "The game is not finished: `{command} run` resumes it.",
        "mafia.bad_seat.one": "No seat № {seat}: the table has {seats} seat",
        "mafia.bad_seat.few": "No seat № {seat}: the table has {seats} seats",
        "mafia.bad_seat.many": "No seat № {seat}: the table has {seats} seats",
        # --- renaming a team (controller/loop.py, every mode's rename action) ------------
        "renamed": "{old} → {name}",
        "mafia.renamed": "Seat {seat}: {name}",
        "rename_empty": "The name cannot be empty",
        "rename_too_long.one": "The name is longer than {max} character",
        "rename_too_long.few": "The name is longer than {max} characters",
        "rename_too_long.many": "The name is longer than {max} characters",
        "rename_taken": "The name “{name}” is taken",
        "rename_unchanged": "{team}: the name is unchanged",
        "rename_pick": "Rename: the team's number or its button",
        "rename_pick_seat": "Rename: the seat number",
        "rename_pick_hint": "Enter — choose · Esc — cancel",
        "rename_type": "New name: {number} · {team}",
        "rename_hint": "Enter — save · Backspace — erase a letter · Delete — all · Esc — cancel",
        "rename_cancelled": "Rename cancelled",
        "rename_no_team": "No team number {number}",
        "action_rename": "Rename a team (player)",
    },
}


class _KeepMissing(dict):
    """Format mapping that leaves an unknown ``{name}`` in the text as it is,
    so a missing parameter shows up on screen instead of crashing the display."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _format(template: str, params: Mapping[str, Any]) -> str:
    if not params and "{" not in template:
        return template
    try:
        return string.Formatter().vformat(template, (), _KeepMissing(params))
    except (ValueError, IndexError, KeyError, AttributeError):
        # A malformed template or a bad format spec: show the raw template.
        return template


COUNT_PARAMS = {"skip_not_allowed": "players", "mafia.bad_seat": "seats", "rename_too_long": "max"}
"""Counted messages whose count is not ``{n}``: key -> the parameter that picks the form."""


def t(key: str, lang: str = DEFAULT_LANG, /, **params: Any) -> str:
    """The UI text for ``key`` in ``lang``, with ``params`` filled in.

    A counted message (keys ``key.one`` / ``.few`` / ``.many``) takes the form
    its count asks for: ``t("resumed", n=22)`` gives «… 22 события …»; the count
    is ``{n}`` unless :data:`COUNT_PARAMS` names another parameter.  Falls back to
    the English text, then to the key itself, so an unknown key or language never
    breaks the screen.
    """
    table = STRINGS.get(lang) or STRINGS[DEFAULT_LANG]
    template = table.get(key)
    if template is None and f"{key}.one" in STRINGS["en"]:
        count = params.get(COUNT_PARAMS.get(key, "n"))
        if isinstance(count, (int, float)) and not isinstance(count, bool):
            key = f"{key}.{plural_form(count, lang if lang in STRINGS else DEFAULT_LANG)}"
        else:
            key = f"{key}.many"
        template = table.get(key)
    if template is None:
        template = STRINGS["en"].get(key, key)
    return _format(template, params)


PARAM_WORDS: dict[str, dict[str, str]] = {
    "role": {r: f"role_{r}" for r in ("civilian", "mafia", "don", "commissar", "doctor")},
    "kind": {"minute": "speech", "defence": "defence", "last_word": "last_word"},
}
"""Notice parameters that carry a name from the engine (a «Мафия» role, a kind of speech):
parameter -> value -> the key of its words."""


def notice(key: str, lang: str = DEFAULT_LANG, /, **params: Any) -> str:
    """A host notice (:class:`~controller.effects.Notice` ``key`` and ``params``) in words:
    like :func:`t`, with the engine's names in ``params`` (``role="don"``) put in words too."""
    for name, words in PARAM_WORDS.items():
        value = params.get(name)
        if isinstance(value, str) and value in words:
            params[name] = t(words[value], lang)
    return t(key, lang, **params)
MODE_TITLES = {"erudite": "mode_erudite", "own-game": "mode_jeopardy", "brain-ring": "mode_brain_ring",
               "chgk": "mode_chgk", "mafia": "mode_mafia", "programme": "mode_programme"}
"""Mode name (as in config) -> key of its title."""


def mode_title(mode: Any, lang: str = DEFAULT_LANG) -> str:
    """A game mode in words: ``mode_title("own-game")`` gives «Своя игра»."""
    key = MODE_TITLES.get(str(mode))
    return t(key, lang) if key else str(mode)


ACTION_LABELS = {"reading_done": "action_arm", "resume": "action_pause"}
"""Host actions whose key-help label is another action's."""


def action_label(action: str, lang: str = DEFAULT_LANG) -> str:
    """What a host action does, in words (the key help, «not in this game» notices);
    the action's own name when no label exists."""
    key = ACTION_LABELS.get(action, f"action_{action}")
    return t(key, lang) if key in STRINGS["en"] else action


def plural_form(n: int | float, lang: str = DEFAULT_LANG) -> str:
    """``"one"``, ``"few"`` or ``"many"``: which form of a counted noun
    goes with ``n`` (Russian rules; English uses ``one``/``many``)."""
    if n != int(n):
        return "few" if lang == "ru" else "many"
    n = abs(int(n))
    if lang == "ru":
        if n % 10 == 1 and n % 100 != 11:
            return "one"
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return "few"
        return "many"
    return "one" if n == 1 else "many"


def tn(key: str, n: int | float, lang: str = DEFAULT_LANG, /, **params: Any) -> str:
    """A counted phrase: ``tn("points_n", 21)`` gives «21 очко».

    Looks up ``key + "." + plural_form(n)``; ``{n}`` in the text is filled
    with :func:`signed` ``n`` when negative, else ``n`` itself.
    """
    value = signed(n) if n < 0 else n
    return t(f"{key}.{plural_form(n, lang)}", lang, n=value, **params)


def signed(n: int | float) -> str:
    """A score change as the screen shows it: ``+10``, ``−20`` (true minus), ``0``."""
    if n > 0:
        return f"+{n:g}" if isinstance(n, float) else f"+{n}"
    if n < 0:
        return MINUS + (f"{-n:g}" if isinstance(n, float) else f"{-n}")
    return "0"


def all_strings() -> list[tuple[str, str, str]]:
    """Every (lang, key, text) triple: for checks such as font coverage."""
    return [(lang, key, text) for lang, table in STRINGS.items() for key, text in table.items()]
