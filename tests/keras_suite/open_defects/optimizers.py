"""Keras's cases of ``keras/src/optimizers/`` that fail on kgraph for an open defect."""

OPEN: dict[str, str] = {
    'keras/src/optimizers/multi_optimizer_test.py::MultiOptimizerTest::test_swap_ema_weights_with_multi_optimizer':
        'IndexError: list index out of range',
    'keras/src/optimizers/muon_test.py::MuonTest::test_adamw_single_step':
        "AttributeError: 'Muon' object has no attribute 'update_step'",
    'keras/src/optimizers/muon_test.py::MuonTest::test_muon_single_step':
        "AttributeError: 'Muon' object has no attribute 'update_step'",
}
