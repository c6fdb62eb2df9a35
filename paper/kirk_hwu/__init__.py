"""The MRI reconstruction and direct Coulomb summation study's report: chapters and their data modules."""
