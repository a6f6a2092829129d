"""The globals a checkpoint in torch's legacy (non-zip) format asks for, read without unpickling.

``torch.serialization.get_unsafe_globals_in_checkpoint`` reads zip checkpoints only. A legacy
file (``torch.save(..., _use_new_zipfile_serialization=False)``, torch < 1.6) is a row of
pickles: torch's magic number, the protocol version, system info, the object, the storage keys,
then raw storage bytes. Its object's opcodes are listed here with ``pickletools``, which
executes nothing, so a refused file can be told from a damaged one.
"""

import pickletools

# torch.serialization.MAGIC_NUMBER, the first pickle of a legacy file.
LEGACY_MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
STRING_OPS = {'SHORT_BINUNICODE', 'BINUNICODE', 'BINUNICODE8', 'UNICODE', 'STRING'}
STRING_OPS |= {'BINSTRING', 'SHORT_BINSTRING'}
FRAMING = ('PROTO', 'FRAME')


def legacy_checkpoint_globals(filename: str):
    """The ``module.name`` globals the object pickle of a legacy torch checkpoint names, sorted;
    None when the file is not one (no magic number, or pickles that do not parse)."""
    try:
        with open(filename, 'rb') as f:
            magic = _only_value(f)
            if magic != LEGACY_MAGIC_NUMBER:
                return None
            _only_value(f)  # protocol version
            _skip(f)  # system info
            return sorted(_globals(f))
    except Exception:  # truncated or not a pickle at all
        return None


def _only_value(f):
    """The value of a pickle that holds one integer (the magic number, the protocol)."""
    ops = pickletools.genops(f)
    values = [arg for op, arg, _ in ops if isinstance(arg, int) and op.name not in FRAMING]
    return values[0] if len(values) == 1 else None


def _skip(f) -> None:
    for _ in pickletools.genops(f):
        pass


def _globals(f) -> set:
    """GLOBAL / INST arguments, and for STACK_GLOBAL (protocol 4 and up) the last two strings
    pushed before it, directly or from the memo."""
    found, strings, memo, top = set(), [], {}, None
    for op, arg, _ in pickletools.genops(f):
        name, pushed = op.name, None
        if name in ('GLOBAL', 'INST'):
            found.add('.'.join(arg.split(' ', 1)))
        elif name in STRING_OPS:
            pushed = arg if isinstance(arg, str) else arg.decode('latin-1')
        elif name in ('BINPUT', 'LONG_BINPUT', 'PUT', 'MEMOIZE'):
            memo[len(memo) if name == 'MEMOIZE' else arg] = top
            pushed = top  # memoizing leaves the stack as it was
        elif name in ('BINGET', 'LONG_BINGET', 'GET'):
            pushed = memo.get(arg)
        elif name == 'STACK_GLOBAL' and len(strings) >= 2:
            found.add(f'{strings[-2]}.{strings[-1]}')
        if pushed is not None and name not in ('BINPUT', 'LONG_BINPUT', 'PUT', 'MEMOIZE'):
            strings.append(pushed)
        top = pushed
    return found
